import type { SourceStateStore } from '../journal/types.js';
import { backoffDelay, type BackoffBounds } from '../util/backoff.js';
import { localTime } from '../util/local-time.js';

/**
 * The ledger of refused passwords of an HTTP terminal (Dahua, Hikvision): devices lock the account
 * after a few failures, so a refused password is not tried again soon. Each refusal is kept in the
 * journal (the terminal's `auth` state), so restarts, `check` and the user commands keep to the
 * same wait instead of each spending one more try. What a source keeps beside the count (an unlock
 * time, the device's words) and how long it waits are its own (its auth-gate.ts).
 */
const KEY = 'auth';

/** What every source keeps of a refusal. */
export interface RefusalCount {
  /** When the last refusal happened (epoch ms, the box's wall clock). */
  at: number;
  /** Refusals in a row. */
  refusals: number;
  /** The device said the account is locked. */
  locked: boolean;
}

/** The stored refusal as written (the source reads its own fields from it), or undefined: none, or unreadable. */
export function readStoredRefusal(
  state: Pick<SourceStateStore, 'get'>,
  terminal: string,
): (Record<string, unknown> & RefusalCount) | undefined {
  const raw = state.get(terminal, KEY);
  if (!raw) return undefined;
  try {
    const o = JSON.parse(raw) as Record<string, unknown> | null;
    if (!o || typeof o.at !== 'number' || typeof o.refusals !== 'number') return undefined;
    return { ...o, at: o.at, refusals: o.refusals, locked: o.locked === true };
  } catch {
    return undefined;
  }
}

/** Records one more refusal at `now` with the source's own fields (`locked` first); returns it. */
export function storeRefusal<T extends { locked: boolean }>(
  state: SourceStateStore,
  terminal: string,
  now: number,
  fields: T,
): { at: number; refusals: number } & T {
  const r = { at: now, refusals: (readStoredRefusal(state, terminal)?.refusals ?? 0) + 1, ...fields };
  state.set({ terminal, key: KEY, value: JSON.stringify(r) });
  return r;
}

/** The password worked: forget past refusals. Returns whether there was one (the password works again). */
export function clearRefusal(state: SourceStateStore, terminal: string): boolean {
  const had = readStoredRefusal(state, terminal) !== undefined;
  if (state.get(terminal, KEY)) state.set({ terminal, key: KEY, value: '' });
  return had;
}

/**
 * When the password may be tried again by the refusal count alone (undefined: now, or no
 * refusal): the wait is `retry`'s backoff after the last refusal, and none when the password file
 * changed since. The refusal's time is on the wall clock: when the box clock has stepped back
 * behind it (`now` given), the wait counts from now, not from a time that has not come yet, so a
 * step back of an hour does not add an hour to it.
 */
export function retryAfterRefusal(
  r: Pick<RefusalCount, 'at' | 'refusals'> | undefined,
  passwordChangedAt: number | null,
  retry: BackoffBounds,
  now?: number,
): number | undefined {
  if (!r) return undefined;
  if (passwordChangedAt !== null && passwordChangedAt > r.at) return undefined;
  return sinceRefusal(r.at, now) + backoffDelay(r.refusals - 1, retry);
}

/** A time kept from a refusal, moved back to `now` when the box clock stepped back behind it. */
export function sinceRefusal(at: number, now?: number): number {
  return now !== undefined && at > now ? now : at;
}

/** The status's cause of a refused password, led by the terminal's name (`unlock`: e.g. " (until 14:05)"). */
export function refusedCause(terminal: string, locked: boolean, unlock = ''): string {
  return locked
    ? `${terminal} has locked the account after repeated wrong passwords${unlock}`
    : `${terminal} refuses the password`;
}

/** When the next try is, in words. */
export const nextTryWords = (next: number | undefined): string =>
  next === undefined ? 'trying again now' : `next try at ${localTime(next)}`;

/** Why punchgate waits instead of trying again at once (the end of a refusal's fix). */
export const WHY_IT_WAITS = 'devices lock the account after a few failures, so punchgate waits';
