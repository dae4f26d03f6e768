import { REFUSALS_THAT_HOLD_NOTHING } from './odoo/refusal-words.js';

/** How a sink's claims hold a person's later punches behind a refused one (journal/held-behind-refused.ts). */
export interface HoldPolicy {
  /** Refusals (SQL LIKE on their message) that hold nothing: nothing of that person is in the HRMS to pair. */
  holdNothing: readonly string[];
}

/**
 * The hold policy of a sink that pairs each person's punches in time order, else undefined: Odoo's
 * hr.attendance records are pairs made from consecutive punches. Frappe and the seed HRMS keep each
 * punch as it is (Frappe's Auto Attendance reads them all again at its own time): nothing waits there.
 */
export function holdPolicy(sink: { kind: string }): HoldPolicy | undefined {
  return sink.kind === 'odoo' ? { holdNothing: REFUSALS_THAT_HOLD_NOTHING } : undefined;
}

/** The Deliverer's option for the sink: `{ holdBehindRefused }` where it holds, else nothing. */
export function holdOption(sink: { kind: string }): { holdBehindRefused?: HoldPolicy } {
  const policy = holdPolicy(sink);
  return policy ? { holdBehindRefused: policy } : {};
}
