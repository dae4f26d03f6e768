import type { SourceStateStore } from '../../journal/types.js';
import {
  nextTryWords,
  readStoredRefusal,
  refusedCause,
  retryAfterRefusal,
  storeRefusal,
  WHY_IT_WAITS,
} from '../password-refusals.js';
import { staleNonceCause, staleNonceFix } from '../digest-login.js';

export { clearRefusal } from '../password-refusals.js';

/**
 * A refused password is not tried again soon: Dahua devices lock the account after five failures
 * for half an hour. After a refusal the next try waits 5 minutes, doubling to an hour (from half
 * an hour when the account is locked); a password file changed since is tried at once. Kept in
 * the journal (src/sources/password-refusals.ts), so restarts, `check` and `sync-users` keep to
 * the same wait instead of each spending one more try.
 */
const RETRY = { baseMs: 5 * 60_000, maxMs: 60 * 60_000 };

export interface Refusal {
  at: number;
  refusals: number;
  locked: boolean;
  /** Not a word of refusal from the device: every try met a new nonce marked stale (digest-login.ts). */
  staleNonce?: boolean;
}

export function readRefusal(state: Pick<SourceStateStore, 'get'>, terminal: string): Refusal | undefined {
  const o = readStoredRefusal(state, terminal);
  return (
    o && { at: o.at, refusals: o.refusals, locked: o.locked, ...(o.staleNonce === true ? { staleNonce: true } : {}) }
  );
}

/** Records one more refusal (`staleNonce`: the device kept asking with a new nonce instead). */
export function recordRefusal(
  state: SourceStateStore,
  terminal: string,
  locked: boolean,
  now: number,
  staleNonce = false,
): Refusal {
  return storeRefusal(state, terminal, now, { locked, ...(staleNonce ? { staleNonce: true } : {}) });
}

/** When the password may be tried again (undefined: now). */
export function nextTry(r: Refusal | undefined, passwordChangedAt: number | null, now: number): number | undefined {
  const retry = r?.locked ? { ...RETRY, baseMs: 30 * 60_000 } : RETRY;
  const at = retryAfterRefusal(r, passwordChangedAt, retry, now);
  return at !== undefined && at > now ? at : undefined;
}

/** The status line's cause and fix of a refused password. */
export function refusalWords(
  terminal: string,
  r: Refusal,
  next: number | undefined,
  from: string,
): { cause: string; fix: string } {
  if (r.staleNonce)
    return {
      cause: staleNonceCause(terminal),
      fix: staleNonceFix(`put the right password in ${from} (${nextTryWords(next)}, or as soon as the file changes)`),
    };
  return {
    cause: refusedCause(terminal, r.locked),
    fix: `put the right password in ${from} (${nextTryWords(next)}, or as soon as the file changes); ${WHY_IT_WAITS}`,
  };
}
