import { localTime } from '../util/local-time.js';

/**
 * How long delivery waits on a server's Retry-After, and how the state says it. The server is
 * honoured up to delivery.retryAfterMaxMs, then asked again (one request: the same answer is
 * another wait): an HRMS asking for a day held delivery an hour with no request and no word (a
 * trial). A hint under the backoff's base (0, 1 ms) does not make punchgate ask faster than that.
 */
export function retryAfterWait(askedMs: number, o: { retryAfterMaxMs: number; baseMs: number }): number {
  return Math.max(Math.min(askedMs, o.retryAfterMaxMs), o.baseMs);
}

/**
 * "the HRMS asked to wait until <time> (Retry-After)", and where punchgate asks before that time,
 * when it asks again and the key that bounds it (the status and the page add how to try now: said
 * twice it was read as two different fixes). `who`: "HRMS", "Frappe", "Odoo".
 */
export function retryAfterWords(who: string, now: number, askedMs: number, waitMs: number): string {
  const asked = `${who === 'HRMS' ? 'the HRMS' : who} asked to wait until ${localTime(now + askedMs)} (Retry-After)`;
  if (waitMs >= askedMs) return asked;
  return `${asked}; punchgate asks again at ${localTime(now + waitMs)}, waiting at most delivery.retryAfterMaxMs`;
}
