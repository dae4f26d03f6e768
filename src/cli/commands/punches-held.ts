import type { StoredPunch } from '../../journal/types.js';
import type { SinkConfig } from '../../config/sinks.js';
import { holdPolicy } from '../../sinks/hold-policy.js';
import { HELD_PREFIX } from '../../sinks/odoo/sender.js';

/** What can tell the codes held behind a refused punch: the journal's own queue or another sink's. */
interface RefusedFirstSource {
  refusedFirstByCode(holdNothing: readonly string[]): Map<string, string>;
}

/**
 * The listed punches with the reason a pending one waits, where the sink holds a person's later
 * punches behind a refused one (Odoo: journal/held-behind-refused.ts). The sender writes this
 * reason only on punches it had in a batch with the refused one; those journalled later are never
 * claimed, and listed bare (0 attempts, no answer) they looked stuck for no reason
 * (docs/sinks-odoo.md promises the reason). Other sinks hold nothing: the rows as they are.
 */
export function withHeldReasons(
  rows: StoredPunch[],
  sink: Pick<SinkConfig, 'kind'> | undefined,
  source: RefusedFirstSource,
): StoredPunch[] {
  const policy = sink ? holdPolicy(sink) : undefined;
  if (!policy || !rows.some((r) => r.state === 'pending' && !r.lastMessage)) return rows;
  const first = source.refusedFirstByCode(policy.holdNothing);
  if (first.size === 0) return rows;
  return rows.map((r) => {
    const t = first.get(r.biometricCode);
    if (r.state !== 'pending' || r.lastMessage || t === undefined || t >= r.logTime) return r;
    return { ...r, lastMessage: `${HELD_PREFIX} at ${t} was refused by Odoo; this one waits until it is in` };
  });
}
