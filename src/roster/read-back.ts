import { messageOf } from '../util/errors.js';
import type { Change, ChangeResult } from './types.js';

/**
 * Reads the users back after changes were written: a change the terminal answered (`applied`) or
 * did not answer (`unknown`) counts as applied only if the terminal now holds it; otherwise it
 * failed. A read-back that fails leaves the results as they are, with a warning. The same rule for
 * every kind whose writes can be read back (ZK, Hikvision); `holds` is the kind's own test.
 */
export async function verifyByReadBack<T>(
  changes: readonly Change[],
  results: ChangeResult[],
  warnings: string[],
  read: () => Promise<T>,
  holds: (change: Change, now: T) => boolean,
): Promise<void> {
  const toCheck = (r: ChangeResult | undefined) => r?.status === 'applied' || r?.status === 'unknown';
  if (!changes.some((_, i) => toCheck(results[i]))) return;
  let now: T;
  try {
    now = await read();
  } catch (e) {
    warnings.push(`could not read the users back to check the changes: ${messageOf(e)}`);
    return;
  }
  changes.forEach((c, i) => {
    const r = results[i]!;
    if (!toCheck(r)) return;
    if (holds(c, now)) results[i] = { ...r, status: 'applied', error: undefined };
    else if (r.status === 'unknown')
      results[i] = { status: 'failed', error: `${r.error}; the terminal does not hold it` };
    else results[i] = { status: 'failed', error: 'the terminal acknowledged it but does not hold it' };
  });
}
