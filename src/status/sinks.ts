import { DEFAULT_SINK_NAME, sinksOf, terminalsNotFor } from '../config/sinks.js';
import { sinkKeyPrefix } from '../sinks/build-problem.js';
import { holdPolicy } from '../sinks/hold-policy.js';
import type { Config } from '../config/schema.js';
import { cannotStart } from '../delivery/cannot-start.js';
import { credentialTrouble } from '../delivery/credential-trouble.js';
import type { Journal } from '../journal/journal.js';
import { printable } from '../util/terminal-text.js';
import { localTimeOf } from '../util/local-time.js';
import { ALERT, deliveryTrouble, type Alert } from './alert-words.js';
import { daemonStoppedAt } from './alerts.js';
import { sinkCredential } from './credential.js';
import { notRoutedWords } from './not-routed-words.js';
import { heldBehindRefusedAlert, heldBehindRefusedCount, refusalAlerts } from './refusals.js';
import type { LiveFacts, SinkStatus, StatusReport } from './types.js';

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
const ms = (s: string | null) => (s === null ? null : Date.parse(s));

/**
 * The status of every sink (issue 32), where the config has more than one: `sinks` in the report
 * (the default sink's figures are also the report's own `punches` and `delivery`, as ever), and
 * the alerts of the other sinks (the default sink's are the report's own).
 */
export function addSinkStatus(
  report: StatusReport,
  journal: Journal,
  config: Config,
  live: LiveFacts | undefined,
  now: number,
): Alert[] {
  const sinks = sinksOf(config);
  // A sink taken out of the config (or renamed) while owed punches: said whatever the sinks left.
  // Only once punchgate run took it out (a start or reload did): a config edited but not reloaded
  // yet still has the daemon deliver to it.
  const removed = journal
    .owedToRemovedSinks({ defaultSink: sinks[0]?.name ?? '', others: sinks.slice(1).map((s) => s.name) })
    .filter((r) => !r.justRemoved)
    .map((r) => ({ name: r.sink, owed: r.owed }));
  if (removed.length > 0) report.removedSinks = removed;
  if (sinks.length < 2) return [];
  const alerts: Alert[] = [];
  report.sinks = sinks.map((s, i): SinkStatus => {
    const isDefault = i === 0;
    const d = journal.deliveryStateOf(isDefault ? undefined : s.name).get();
    const l = live?.sinks?.[s.name];
    const queue = isDefault ? undefined : journal.sinkQueue(s.name, terminalsNotFor(config, s.name));
    const status: SinkStatus = {
      name: s.name,
      kind: s.kind,
      default: isDefault,
      punches: queue ? queue.counts() : report.punches,
      delivery: isDefault
        ? report.delivery
        : {
            auth: d.auth,
            authFailedSince: iso(d.authFailedSince),
            lastAttemptAt: iso(d.lastAttemptAt),
            lastSuccessAt: iso(d.lastSuccessAt),
            lastResult: d.lastResult,
            lastError: d.lastError,
            lastErrorAt: iso(d.lastErrorAt),
            failingSince: iso(d.failingSince),
            nextTryAt: iso(l?.nextTryAt),
            probing: l?.probing ?? false,
            credential: sinkCredential(s, false),
          },
    };
    if (queue) {
      const keys = sinkKeysOf(config, s);
      alerts.push(
        ...sinkAlerts(status, config.delivery.alertAfterMinutes * 60_000, now, daemonStoppedAt(report, now), keys),
      );
      // The default sink's refusals are the report's own alerts (alerts.ts); each other sink has its own.
      alerts.push(...refusalAlerts(queue.refused(), s.name));
      alerts.push(...heldBehindRefusedAlert(heldBehindRefusedCount(queue, holdPolicy(s)), s.name));
    }
    return status;
  });
  return alerts;
}

/** Where a sink's settings are, for the words that name one: `hrms` for the hrms: block, else `sinks[NAME]`. */
export function sinkKeysOf(config: Config, sink: { name: string }): string {
  return sinkKeyPrefix(sink, sink.name === DEFAULT_SINK_NAME && config.hrms !== undefined);
}

/**
 * A Frappe sink's shift sync failing for longer than delivery.alertAfterMinutes (the daemon's
 * live facts: it is known only to the running daemon), whatever the number of sinks.
 */
export function shiftSyncAlerts(config: Config, live: LiveFacts | undefined, now: number): Alert[] {
  const alertAfterMs = config.delivery.alertAfterMinutes * 60_000;
  const out: Alert[] = [];
  for (const [sink, l] of Object.entries(live?.sinks ?? {})) {
    const since = l.shiftSync?.failingSince ?? null;
    if (since !== null && now - since >= alertAfterMs)
      out.push(ALERT.shiftSyncFailing({ sink, forMs: now - since, lastError: l.shiftSync?.lastError ?? null }));
    const held = Object.entries(l.shiftSync?.held ?? {})
      .filter(([, h]) => now - h.since >= alertAfterMs)
      .map(([shiftType, h]) => ({ shiftType, ...h }))
      .sort((a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : 0));
    if (held.length > 0)
      out.push(ALERT.shiftSyncHeld({ sink, forMs: now - Math.min(...held.map((h) => h.since)), held }));
  }
  return out;
}

/** `stoppedAt`: when punchgate run stopped, if it is not running (then failing is measured to then). */
function sinkAlerts(s: SinkStatus, alertAfterMs: number, now: number, stoppedAt: number | null, keys: string): Alert[] {
  const d = s.delivery;
  if (d.auth === 'failed')
    return [
      ALERT.sinkToken({
        sink: s.name,
        credential: d.credential ?? sinkCredential(s, false),
        since: ms(d.authFailedSince),
        noToken: credentialTrouble(d) === 'none',
        lastError: d.lastError,
      }),
    ];
  const failing = ms(d.failingSince);
  if (cannotStart({ failingSince: failing, lastError: d.lastError }))
    return [
      ALERT.cannotStart({
        sink: s.name,
        isDefault: false,
        lastError: d.lastError ?? '',
        since: failing,
        waiting: s.punches.pending + s.punches.inflight,
      }),
    ];
  const until = Math.max(stoppedAt ?? now, failing ?? 0);
  if (failing !== null && until - failing >= alertAfterMs)
    return [
      ALERT.sinkFailing({
        sink: s.name,
        forMs: until - failing,
        waiting: s.punches.pending + s.punches.inflight,
        reason: deliveryTrouble(d.lastError, keys),
        nextTryAt: ms(d.nextTryAt),
        stopped: stoppedAt !== null,
      }),
    ];
  return [];
}

/** The lines of `punchgate status` under "Sinks": one per sink. */
export function sinkLines(r: StatusReport): string[] {
  if (!r.sinks && !r.removedSinks) return [];
  const lines = ['', 'Sinks'];
  for (const s of r.sinks ?? []) {
    const d = s.delivery;
    const state =
      d.auth === 'failed'
        ? 'AUTH FAILED'
        : cannotStart({ failingSince: ms(d.failingSince), lastError: d.lastError })
          ? 'CANNOT START'
          : d.failingSince
            ? 'FAILING'
            : d.auth === 'ok'
              ? 'delivering'
              : 'not tried yet';
    const p = s.punches;
    lines.push(
      `  ${s.name.padEnd(16)} ${s.kind.padEnd(6)} ${state}  pending ${p.pending}  in flight ${p.inflight}  delivered ${p.delivered}${notRoutedWords(p)}  rejected ${p.rejected}  dead ${p.dead}  quarantined ${p.quarantined}  last success ${localTimeOf(d.lastSuccessAt)}`,
    );
    if (d.lastError && (d.failingSince || d.auth === 'failed'))
      lines.push(`    ${s.name}: last error ${localTimeOf(d.lastErrorAt)}: ${printable(d.lastError, 300)}`);
  }
  for (const s of r.removedSinks ?? [])
    lines.push(
      `  ${s.name}: not in the config, still owed ${s.owed} ${s.owed === 1 ? 'punch' : 'punches'}: they are not sent to it; to deliver them, put sink ${s.name} back in the config and reload`,
    );
  return lines;
}
