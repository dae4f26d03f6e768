import type { SourceStateStore } from '../../journal/types.js';
import { backoffDelay } from '../../util/backoff.js';
import type { HikAuthError } from './errors.js';
import { localTime } from '../../util/local-time.js';

/**
 * A refused password is not tried again soon: devices lock the account after a few failures
 * (and then refuse even the right password for half an hour or more). After a refusal the next
 * try waits 5 minutes, doubling to an hour; a password file changed since the refusal is tried
 * at once. The refusal is kept in the journal, so restarts, `check` and `terminals users` keep
 * to the same wait instead of each spending one more try.
 */
export const AUTH_RETRY = { baseMs: 5 * 60_000, maxMs: 60 * 60_000 };
const KEY = 'auth';

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
}

export function readRefusal(state: Pick<SourceStateStore, 'get'>, terminal: string): AuthRefusal | undefined {
  const raw = state.get(terminal, KEY);
  if (!raw) return undefined;
  try {
    const o = JSON.parse(raw) as Partial<AuthRefusal>;
    if (typeof o.at !== 'number' || typeof o.refusals !== 'number') return undefined;
    return {
      at: o.at,
      refusals: o.refusals,
      locked: o.locked === true,
      unlockAt: o.unlockAt,
      message: o.message ?? '',
    };
  } catch {
    return undefined;
  }
}

/** Records one more refusal; returns it. */
export function recordRefusal(state: SourceStateStore, terminal: string, err: HikAuthError, now: number): AuthRefusal {
  const prev = readRefusal(state, terminal);
  const r: AuthRefusal = {
    at: now,
    refusals: (prev?.refusals ?? 0) + 1,
    locked: err.locked,
    ...(err.unlockSeconds !== undefined ? { unlockAt: now + err.unlockSeconds * 1000 } : {}),
    message: err.message,
  };
  state.set({ terminal, key: KEY, value: JSON.stringify(r) });
  return r;
}

/** The password worked: forget past refusals. */
export function clearRefusal(state: SourceStateStore, terminal: string): void {
  if (state.get(terminal, KEY) !== undefined) state.set({ terminal, key: KEY, value: '' });
}

/**
 * When the password may be tried again: undefined = now. `passwordChangedAt` is the password
 * file's modification time (null when the password comes from the environment). The refusal's
 * time is kept in the journal, on the wall clock: when the box clock has stepped back behind it
 * (`now` given), the wait counts from now, not from a time that has not come yet, so a step back
 * of an hour does not add an hour to it.
 */
export function nextAuthTry(
  r: AuthRefusal | undefined,
  passwordChangedAt: number | null,
  now?: number,
): number | undefined {
  if (!r) return undefined;
  if (passwordChangedAt !== null && passwordChangedAt > r.at) return undefined;
  const from = now !== undefined && r.at > now ? now : r.at;
  const after = from + backoffDelay(r.refusals - 1, AUTH_RETRY);
  if (!r.locked || r.unlockAt === undefined) return after;
  const unlockAt = now !== undefined && r.at > now ? now + (r.unlockAt - r.at) : r.unlockAt;
  return Math.max(after, unlockAt);
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
  const what = r.locked
    ? `${terminal} has locked the account after repeated wrong passwords${r.unlockAt ? ` (until ${localTime(r.unlockAt)})` : ''}`
    : `${terminal} refuses the password`;
  const when = next === undefined ? 'trying again now' : `next try at ${localTime(next)}`;
  const fix =
    from && 'env' in from
      ? `set the right password in ${from.env} and restart punchgate (${when}`
      : `put the right password in ${from ? from.file : 'the password file'} (${when}, or as soon as the file changes`;
  return `${what}: ${fix}; devices lock the account after a few failures, so punchgate waits)`;
}
