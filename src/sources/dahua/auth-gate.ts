import type { SourceStateStore } from '../../journal/types.js';
import { backoffDelay } from '../../util/backoff.js';
import { localTime } from '../../util/local-time.js';

/**
 * A refused password is not tried again soon: Dahua devices lock the account after five failures
 * for half an hour. After a refusal the next try waits 5 minutes, doubling to an hour; a password
 * file changed since is tried at once. Kept in the journal, so restarts, `check` and
 * `sync-users` keep to the same wait instead of each spending one more try.
 */
const RETRY = { baseMs: 5 * 60_000, maxMs: 60 * 60_000 };
const KEY = 'auth';

export interface Refusal {
  at: number;
  refusals: number;
  locked: boolean;
}

export function readRefusal(state: Pick<SourceStateStore, 'get'>, terminal: string): Refusal | undefined {
  try {
    const o = JSON.parse(state.get(terminal, KEY) || 'null') as Partial<Refusal> | null;
    if (!o || typeof o.at !== 'number' || typeof o.refusals !== 'number') return undefined;
    return { at: o.at, refusals: o.refusals, locked: o.locked === true };
  } catch {
    return undefined;
  }
}

export function recordRefusal(state: SourceStateStore, terminal: string, locked: boolean, now: number): Refusal {
  const r = { at: now, refusals: (readRefusal(state, terminal)?.refusals ?? 0) + 1, locked };
  state.set({ terminal, key: KEY, value: JSON.stringify(r) });
  return r;
}

/** The password worked: forget past refusals; says whether there was one. */
export function clearRefusal(state: SourceStateStore, terminal: string): boolean {
  if (!readRefusal(state, terminal)) return false;
  state.set({ terminal, key: KEY, value: '' });
  return true;
}

/** When the password may be tried again (undefined: now). */
export function nextTry(r: Refusal | undefined, passwordChangedAt: number | null, now: number): number | undefined {
  if (!r) return undefined;
  if (passwordChangedAt !== null && passwordChangedAt > r.at) return undefined;
  const from = r.at > now ? now : r.at;
  const at = from + backoffDelay(r.refusals - 1, r.locked ? { ...RETRY, baseMs: 30 * 60_000 } : RETRY);
  return at > now ? at : undefined;
}

/** The status line's cause and fix of a refused password. */
export function refusalWords(
  terminal: string,
  r: Refusal,
  next: number | undefined,
  from: string,
): { cause: string; fix: string } {
  const when = next === undefined ? 'trying again now' : `next try at ${localTime(next)}`;
  return {
    cause: r.locked
      ? `${terminal} has locked the account after repeated wrong passwords`
      : `${terminal} refuses the password`,
    fix: `put the right password in ${from} (${when}, or as soon as the file changes); devices lock the account after a few failures, so punchgate waits`,
  };
}
