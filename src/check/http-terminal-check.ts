/**
 * What `check` says alike of the HTTP terminals (Dahua: dahua-check.ts, Hikvision:
 * hikvision-check.ts): a password punchgate run found refused is not tried again before its
 * wait is over, the facts name the transport and the device the same way, and a terminal clock
 * off by more than the threshold is a warning. What is asked of a terminal, and the fixes, are
 * each kind's own.
 */
import { STALE_NONCE_FIRST, staleNonceCause } from '../sources/digest-login.js';
import { refusedCause } from '../sources/password-refusals.js';
import { localTime } from '../util/local-time.js';
import { fail, pass, warn, type CheckResult } from './types.js';
import { describeSkew } from './zk-check.js';

/**
 * The failure while a refusal punchgate met still waits (`next`): check does not spend a try of
 * its own, so as not to lock the account.
 */
export function refusalStopsCheck(
  name: string,
  terminal: string,
  refusal: { at: number; locked: boolean; staleNonce?: boolean },
  next: number,
  fix: string,
): CheckResult {
  return fail(
    name,
    `${refusal.staleNonce ? staleNonceCause(terminal) : refusedCause(terminal, refusal.locked)} (met by punchgate at ${localTime(refusal.at)}; next try at ${localTime(next)}); not tried again by check, so as not to lock the account`,
    refusal.staleNonce ? `${STALE_NONCE_FIRST}; ${fix}` : fix,
  );
}

/** How the terminal is reached, after its address: " (TLS, certificate pinned)", " (plain http)"... */
export function transportWords(tls: boolean, pinned: boolean, caFile = false): string {
  if (!tls) return ' (plain http)';
  return pinned ? ' (TLS, certificate pinned)' : caFile ? ' (TLS, CA file)' : ' (TLS)';
}

/** The device as it names itself: "serial X, MODEL FIRMWARE" (what it did not say is left out). */
export function deviceWords(
  serial: string | undefined,
  model: string | undefined,
  firmware: string | undefined,
): string {
  return `serial ${serial || 'unknown'}${model ? `, ${model}` : ''}${firmware ? ` ${firmware}` : ''}`;
}

/** The facts as a pass, or as a warning when the terminal clock is off by more than `thresholdSeconds`. */
export function clockVerdict(
  name: string,
  facts: string,
  skew: number,
  thresholdSeconds: number,
  fix: string,
): CheckResult {
  if (Math.abs(skew) > thresholdSeconds)
    return warn(name, `${facts}; the terminal clock is ${describeSkew(skew)}`, fix);
  return pass(name, facts);
}
