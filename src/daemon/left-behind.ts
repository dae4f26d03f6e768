import type { Journal } from '../journal/journal.js';

/**
 * What a stop of punchgate run leaves in the journal, for its last log line: a site admin who
 * stops it by hand (Ctrl-C, systemctl stop) read only "punchgate stopped", and could not tell
 * whether punches were still to be sent (found by a new-user trial; the demo said it, the daemon
 * did not). Waiting: pending, in flight (a flush beside it) and refused for now (retried later).
 * Dead and quarantined punches are kept and shown by the status; they are not sent by a restart.
 */
export function leftBehind(journal: Journal): { words: string; counts: Record<string, number> } {
  let c;
  try {
    c = journal.counts();
  } catch {
    // A journal that failed is what stopped it: that error was said already.
    return { words: 'the journal could not be read for what waits in it', counts: {} };
  }
  const waiting = c.pending + c.inflight + c.rejected;
  const counts = { pending: c.pending, inflight: c.inflight, rejected: c.rejected };
  if (waiting === 0) return { words: 'no punch waits to be delivered', counts };
  const parts = (
    [
      ['pending', c.pending],
      ['in flight', c.inflight],
      ['refused for now', c.rejected],
    ] as const
  )
    .filter(([, n]) => n > 0)
    .map(([what, n]) => `${what} ${n}`)
    .join(', ');
  return {
    words: `${waiting} ${waiting === 1 ? 'punch waits' : 'punches wait'} in the journal to be delivered (${parts}): kept, and sent when punchgate run starts again`,
    counts,
  };
}
