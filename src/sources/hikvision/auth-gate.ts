import type { SourceStateStore } from '../../journal/types.js';
import { HikStaleNonceError, type HikAuthError } from './errors.js';
import { localTime } from '../../util/local-time.js';
import {
  nextTryWords,
  readStoredRefusal,
  refusedCause,
  retryAfterRefusal,
  sinceRefusal,
  storeRefusal,
  WHY_IT_WAITS,
} from '../password-refusals.js';
import { staleNonceCause, staleNonceFix } from '../digest-login.js';

export { clearRefusal } from '../password-refusals.js';

/**
 * A refused password is not tried again soon: devices lock the account after a few failures
 * (and then refuse even the right password for half an hour or more). After a refusal the next
 * try waits 5 minutes, doubling to an hour, and at least until the unlock time the device gave;
 * a password file changed since the refusal is tried at once. The refusal is kept in the journal
 * (src/sources/password-refusals.ts), so restarts, `check` and `terminals users` keep to the same
 * wait instead of each spending one more try.
 */
export const AUTH_RETRY = { baseMs: 5 * 60_000, maxMs: 60 * 60_000 };

export interface AuthRefusal {
  /** When the last refusal happened (epoch ms). */
  at: number;
  /** Refusals in a row. */
  refusals: number;
  /** The device said the account is locked, until this moment when it said. */
  locked: boolean;
  unlockAt?: number;
  /** The refusal in words. */
  message: string;
  /** Not a word of refusal from the device: every try met a new nonce marked stale (digest-login.ts). */
  staleNonce?: boolean;
}

export function readRefusal(state: Pick<SourceStateStore, 'get'>, terminal: string): AuthRefusal | undefined {
  const o = readStoredRefusal(state, terminal);
  if (!o) return undefined;
  return {
    at: o.at,
    refusals: o.refusals,
    locked: o.locked,
    unlockAt: o.unlockAt as number | undefined,
    message: (o.message as string | undefined) ?? '',
    ...(o.staleNonce === true ? { staleNonce: true } : {}),
  };
}

/** Records one more refusal; returns it. */
export function recordRefusal(state: SourceStateStore, terminal: string, err: HikAuthError, now: number): AuthRefusal {
  return storeRefusal(state, terminal, now, {
    locked: err.locked,
    ...(err.unlockSeconds !== undefined ? { unlockAt: now + err.unlockSeconds * 1000 } : {}),
    message: err.message,
    ...(err instanceof HikStaleNonceError ? { staleNonce: true } : {}),
  });
}

/**
 * When the password may be tried again: undefined = now. `passwordChangedAt` is the password
 * file's modification time (null when the password comes from the environment). A box clock
 * stepped back behind the refusal (`now` given) counts the wait from now (password-refusals.ts).
 */
export function nextAuthTry(
  r: AuthRefusal | undefined,
  passwordChangedAt: number | null,
  now?: number,
): number | undefined {
  const after = retryAfterRefusal(r, passwordChangedAt, AUTH_RETRY, now);
  if (!r || after === undefined || !r.locked || r.unlockAt === undefined) return after;
  return Math.max(after, sinceRefusal(r.at, now) + (r.unlockAt - r.at));
}

/** The plain status line of a refused password, e.g. "reception refuses the password ...". */
export function refusalText(
  terminal: string,
  r: AuthRefusal,
  next: number | undefined,
  now: number,
  /** Where the password comes from: a file (changes are noticed) or an environment variable. */
  from?: { file: string } | { env: string },
): string {
  const when = nextTryWords(next);
  if (r.staleNonce) {
    const put =
      from && 'env' in from
        ? `set the right password in ${from.env} and restart punchgate (${when})`
        : `put the right password in ${from ? from.file : 'the password file'} (${when}, or as soon as the file changes)`;
    return `${staleNonceCause(terminal)}: ${staleNonceFix(put)}`;
  }
  const what = refusedCause(terminal, r.locked, r.unlockAt ? ` (until ${localTime(r.unlockAt)})` : '');
  const fix =
    from && 'env' in from
      ? `set the right password in ${from.env} and restart punchgate (${when}`
      : `put the right password in ${from ? from.file : 'the password file'} (${when}, or as soon as the file changes`;
  return `${what}: ${fix}; ${WHY_IT_WAITS})`;
}
