import type { JournalCounts } from '../journal/types.js';

/**
 * The punches a sink was never meant to get, said apart from its delivered ones (journal's
 * not-routed.ts): "delivered 115" for an HRMS that received 85 made an admin believe it held the
 * other 30. Nothing when there are none; a report written before the count existed has none.
 */
export function notRoutedWords(p: Partial<Pick<JournalCounts, 'notRouted'>>): string {
  const n = p.notRouted ?? 0;
  return n > 0 ? `   not for this sink ${n} (not sent: their terminal's sinks: leaves it out)` : '';
}
