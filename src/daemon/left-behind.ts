import type { Config } from '../config/schema.js';
import { sinksOf, terminalsNotFor } from '../config/sinks.js';
import type { Journal } from '../journal/journal.js';
import type { JournalCounts } from '../journal/types.js';

type Waiting = Pick<JournalCounts, 'pending' | 'inflight' | 'rejected'>;

/**
 * What a stop of punchgate run leaves in the journal, for its last log line: a site admin who
 * stops it by hand (Ctrl-C, systemctl stop) read only "punchgate stopped", and could not tell
 * whether punches were still to be sent (found by a new-user trial; the demo said it, the daemon
 * did not). Waiting: pending, in flight (a flush beside it) and refused for now (retried later).
 * Dead and quarantined punches are kept and shown by the status; they are not sent by a restart.
 * Every sink's (config's `sinks:`), not the first's alone: a stop that said "no punch waits" while
 * a second sink (Odoo) was owed hundreds told the admin the box was done with them (found by an
 * integrator's rehearsal).
 */
export function leftBehind(journal: Journal, config?: Config): { words: string; counts: Record<string, unknown> } {
  const sinks = config ? sinksOf(config) : [];
  let queues: { name: string; c: Waiting }[];
  try {
    queues = [
      { name: sinks[0]?.name ?? '', c: journal.counts() },
      ...sinks
        .slice(1)
        .map((s) => ({ name: s.name, c: journal.sinkQueue(s.name, terminalsNotFor(config!, s.name)).counts() })),
    ];
  } catch {
    // A journal that failed is what stopped it: that error was said already.
    return { words: 'the journal could not be read for what waits in it', counts: {} };
  }
  const waiting = (c: Waiting) => ({ pending: c.pending, inflight: c.inflight, rejected: c.rejected });
  const [first, ...others] = queues;
  const counts = {
    ...waiting(first!.c),
    ...(others.length > 0 ? { sinks: Object.fromEntries(others.map((q) => [q.name, waiting(q.c)])) } : {}),
  };
  const several = others.length > 0;
  const said = queues
    .filter((q) => q.c.pending + q.c.inflight + q.c.rejected > 0)
    .map((q) => `${several ? `sink ${q.name}: ` : ''}${owed(q.c)}`);
  if (said.length === 0) return { words: 'no punch waits to be delivered', counts };
  return { words: `${said.join('; ')}: kept, and sent when punchgate run starts again`, counts };
}

function owed(c: Waiting): string {
  const n = c.pending + c.inflight + c.rejected;
  const parts = (
    [
      ['pending', c.pending],
      ['in flight', c.inflight],
      ['refused for now', c.rejected],
    ] as const
  )
    .filter(([, k]) => k > 0)
    .map(([what, k]) => `${what} ${k}`)
    .join(', ');
  return `${n} ${n === 1 ? 'punch waits' : 'punches wait'} in the journal to be delivered (${parts})`;
}
