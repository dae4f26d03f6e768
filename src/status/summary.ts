import { NO_TOKEN } from '../delivery/health.js';
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
export type TerminalShown = 'not contacted yet' | 'online' | 'OFFLINE';

export function terminalShown(t: TerminalStatus): TerminalShown {
  const contacted = t.push ? t.push.lastContactAt !== null : t.lastPollAt !== null;
  if (!contacted) return 'not contacted yet';
  return t.online ? 'online' : 'OFFLINE';
}

/** How the delivery row names a trouble, or undefined when it shows none. */
export function deliveryShown(r: StatusReport): string | undefined {
  return troubleOf(r.delivery);
}

/** How a delivery row (the HRMS's, or a sink's under Sinks) names its trouble, or undefined. */
function troubleOf(d: StatusReport['delivery']): string | undefined {
  if (d.auth === 'failed') return d.lastError?.startsWith(NO_TOKEN) ? 'NO TOKEN' : 'AUTH FAILED';
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

/** The summary line: `ALERTS`, `No alerts.`, or what is not well while no alert says it yet. */
export function summaryLine(r: StatusReport): string {
  if (r.alerts.length > 0) return 'ALERTS';
  const trouble = notWellYet(r);
  return trouble.length === 0 ? 'No alerts.' : `Not all well (no alert yet): ${trouble.join('; ')}`;
}
