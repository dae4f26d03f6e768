import type { StatusReport } from '../status/index.js';
import type { Secrets } from '../util/secrets.js';

/**
 * The report with every field that carries outside text (HRMS messages, terminal errors and
 * serial numbers, and the alerts quoting them) scrubbed of the secrets this process knows.
 * The report is built from the journal, which holds no secret; this is the second belt.
 */
export function scrubReport(r: StatusReport, secrets: Secrets): StatusReport {
  const s = (v: string | null) => (v === null ? null : secrets.scrub(v));
  return {
    ...r,
    delivery: { ...r.delivery, lastError: s(r.delivery.lastError), lastResult: s(r.delivery.lastResult) },
    terminals: r.terminals.map((t) => ({
      ...t,
      lastError: s(t.lastError),
      problem: t.problem ? { cause: secrets.scrub(t.problem.cause), fix: secrets.scrub(t.problem.fix) } : null,
      serial: secrets.scrub(t.serial),
      previousSerial: s(t.previousSerial),
    })),
    alerts: r.alerts.map((a) => secrets.scrub(a)),
    alertItems: r.alertItems.map((a) => ({ ...a, cause: secrets.scrub(a.cause), fix: secrets.scrub(a.fix) })),
  };
}
