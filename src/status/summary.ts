import { cannotStart } from '../delivery/cannot-start.js';
import { credentialTrouble } from '../delivery/credential-trouble.js';
import { span } from './alert-words.js';
import { OFFLINE_ALERT_MS } from './alerts.js';
import type { StatusReport, TerminalStatus } from './types.js';

/**
 * The one verdict above the details, derived from the same state their rows show: "No alerts."
 * only when no terminal row says OFFLINE and no delivery row (the HRMS's, each sink's) says
 * something is failing. Alerts
 * come late on purpose (a terminal offline for less than 5 minutes is often a blip; delivery
 * failing for less than delivery.alertAfterMinutes often recovers), but the summary never
 * contradicts the rows below it meanwhile: it says what is not well yet, and when the alert comes.
 */

/** How a terminal's row shows its state; the summary and every row (text, page) use this. */
export type TerminalShown = 'not contacted yet' | 'online' | 'OFFLINE' | 'LOGIN REFUSED';

export function terminalShown(t: TerminalStatus): TerminalShown {
  const contacted = t.push ? t.push.lastContactAt !== null : t.lastPollAt !== null;
  if (!contacted) return 'not contacted yet';
  // Reached, but refusing the login: neither online (nothing is read) nor offline (it answers).
  if (t.loginRefused) return 'LOGIN REFUSED';
  return t.online ? 'online' : 'OFFLINE';
}

/** How the delivery row names a trouble, or undefined when it shows none. */
export function deliveryShown(r: StatusReport): string | undefined {
  return troubleOf(r.delivery);
}

/** How a delivery row (the HRMS's, or a sink's under Sinks) names its trouble, or undefined. */
function troubleOf(d: StatusReport['delivery']): string | undefined {
  const credential = credentialTrouble(d);
  if (credential) return credential === 'none' ? 'NO TOKEN' : 'AUTH FAILED';
  if (cannotStart({ failingSince: d.failingSince ? Date.parse(d.failingSince) : null, lastError: d.lastError }))
    return 'CANNOT START';
  return d.failingSince ? 'FAILING' : undefined;
}

/**
 * What the rows show as not well while no alert says it yet, one phrase each
 * (`gate-1 OFFLINE for 2 min (an alert at 5 min)`); empty when all is well.
 */
export function notWellYet(r: StatusReport): string[] {
  const now = Date.parse(r.generatedAt);
  const out: string[] = [];
  for (const t of r.terminals) {
    if (terminalShown(t) !== 'OFFLINE') continue;
    const since = t.offlineSince ? Date.parse(t.offlineSince) : null;
    const lasted = since !== null && now >= since ? now - since : null;
    out.push(
      lasted !== null && lasted < OFFLINE_ALERT_MS
        ? `${t.name} OFFLINE for ${lasted < 60_000 ? `${Math.round(lasted / 1000)} s` : span(lasted)} (an alert at ${span(OFFLINE_ALERT_MS)})`
        : `${t.name} OFFLINE`,
    );
  }
  const delivery = deliveryShown(r);
  if (delivery) out.push(`HRMS delivery ${delivery}`);
  // Every other sink's row under Sinks, by the same words (the first sink is the HRMS row above).
  for (const sink of r.sinks ?? []) {
    const trouble = sink.default ? undefined : troubleOf(sink.delivery);
    if (trouble) out.push(`sink ${sink.name} delivery ${trouble}`);
  }
  return out;
}

/**
 * What notWellYet says that no alert of the report says yet: shown beside older alerts, so that a
 * fresh outage is not hidden behind an alert raised hours ago (found by a new-user trial: with a
 * day-old quarantine alert up, the HRMS down and every terminal OFFLINE were in the rows only).
 */
export function notAlertedYet(r: StatusReport): string[] {
  const kinds = new Set((r.alertItems ?? []).map((a) => a.kind));
  const causes = (r.alertItems ?? []).map((a) => a.cause);
  return notWellYet(r).filter((phrase) => {
    if (phrase.startsWith('HRMS delivery'))
      return ![
        'delivery-failing',
        'delivery-cannot-start',
        'token-refused',
        'no-token',
        'daemon-down',
        'config-delivery-held',
      ].some((k) => kinds.has(k));
    const sink = /^sink (\S+) delivery/.exec(phrase)?.[1];
    if (sink !== undefined) return !causes.some((c) => c.includes(`sink ${sink}`));
    // A terminal: its OFFLINE alert comes at OFFLINE_ALERT_MS; any alert naming it says it already.
    const name = phrase.slice(0, phrase.lastIndexOf(' OFFLINE'));
    return !causes.some(
      (c) => c.includes(`terminal ${name} `) || c.includes(`terminal ${name}:`) || c.includes(`${name} (`),
    );
  });
}

/** The summary line: `ALERTS` (and what no alert says yet), `No alerts.`, or what is not well while no alert says it yet. */
export function summaryLine(r: StatusReport): string {
  if (r.alerts.length > 0) {
    const fresh = notAlertedYet(r);
    return fresh.length === 0 ? 'ALERTS' : `ALERTS; also not well (no alert yet): ${fresh.join('; ')}`;
  }
  const trouble = notWellYet(r);
  return trouble.length === 0 ? 'No alerts.' : `Not all well (no alert yet): ${trouble.join('; ')}`;
}
