import type { PunchResult } from '../hrms/attendance.js';
import type { OutboundPunch, PunchOutcome } from '../journal/types.js';

/**
 * Compiles the configured message patterns: case-insensitive regular expressions. A pattern
 * that is not a valid regular expression is matched as plain text rather than failing delivery.
 */
export function compilePatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((p) => {
    try {
      return new RegExp(p, 'i');
    } catch {
      return new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
    }
  });
}

export function matchesAny(message: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((p) => p.test(message));
}

/** Counts of one batch's outcomes. */
export interface OutcomeTally {
  delivered: number;
  duplicates: number;
  rejected: number;
  unknown: number;
}

/**
 * The outcome of each punch of a batch, from an answer whose results were checked against the
 * batch (one per punch, in the order sent; see hrms/answer.ts):
 * - status true -> delivered;
 * - status false with a message saying the punch already exists -> duplicate (it is recorded);
 * - any other false -> rejected with the HRMS's message;
 * - in an answer whose overall Status is false, only clear refusals count (a false with a message):
 *   a true, or a false without a word, is unknown: back to the queue, never delivered.
 */
export function classifyOutcomes(
  batch: readonly OutboundPunch[],
  results: readonly PunchResult[],
  duplicatePatterns: readonly RegExp[],
  overall = true,
): PunchOutcome[] {
  return batch.map((p, i): PunchOutcome => {
    const r = results[i];
    if (!r) return { id: p.id, kind: 'unknown', message: 'no result for this punch in the HRMS answer' };
    if (r.unknown) return { id: p.id, kind: 'unknown', message: r.message || 'its call failed: not confirmed' };
    if (!overall && (r.status || r.message.trim() === ''))
      return { id: p.id, kind: 'unknown', message: 'the HRMS said the request failed as a whole: not confirmed' };
    if (r.status) return { id: p.id, kind: 'delivered', message: r.message };
    if (r.duplicate || matchesAny(r.message, duplicatePatterns))
      return { id: p.id, kind: 'duplicate', message: r.message };
    return { id: p.id, kind: 'rejected', message: r.message || 'refused by the HRMS without a message' };
  });
}

export function tally(outcomes: readonly PunchOutcome[]): OutcomeTally {
  const t: OutcomeTally = { delivered: 0, duplicates: 0, rejected: 0, unknown: 0 };
  for (const o of outcomes) {
    if (o.kind === 'delivered') t.delivered++;
    else if (o.kind === 'duplicate') t.duplicates++;
    else if (o.kind === 'rejected') t.rejected++;
    else t.unknown++;
  }
  return t;
}

/** "200 sent: 198 delivered, 1 duplicate, 1 rejected" (zero counts left out). */
export function describeTally(sent: number, t: OutcomeTally): string {
  const parts: string[] = [];
  if (t.delivered) parts.push(`${t.delivered} delivered`);
  if (t.duplicates) parts.push(`${t.duplicates} duplicate${t.duplicates === 1 ? '' : 's'}`);
  if (t.rejected) parts.push(`${t.rejected} rejected`);
  if (t.unknown) parts.push(`${t.unknown} unknown (requeued)`);
  return `${sent} sent: ${parts.join(', ') || 'nothing settled'}`;
}
