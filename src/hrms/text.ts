import { boundedText } from '../util/bounded-text.js';
import { escapeControlsAsJson } from '../util/terminal-text.js';

/** Longest text from outside (an HRMS message, a page snippet) kept in a message. */
const MAX_MESSAGE = 300;

/**
 * A text that came from outside, made safe to store and show: secrets scrubbed, tabs and line
 * ends as blanks, every other control or invisible character (bidirectional overrides, line
 * separators, zero-width and tag characters...) and a tower of combining marks written as visible
 * `\uXXXX` escapes, by the terminal's rule (escapeControlsAsJson): a message must not move the
 * cursor of the terminal that prints it, nor reorder or hide what follows it, also where it is
 * written as it is kept (`punches export`). At most 300 characters.
 */
export function outsideText(s: string, scrub: (s: string) => string): string {
  const out = escapeControlsAsJson(scrub(s).replace(/[\t\n]+/g, ' '));
  // Cut by code points: a slice of UTF-16 units kept half of an emoji, a lone surrogate.
  return out.length > MAX_MESSAGE ? `${boundedText(out, MAX_MESSAGE)}...` : out;
}

/**
 * The longest Retry-After read: a hundred years, only so that the time asked can be shown (a date
 * in 2099 is said as asked). How long delivery waits on it is bounded by delivery.retryAfterMaxMs
 * (deliverer.ts): a server's word is a hint, not a command (`Retry-After: 86400000`, a date in
 * 2099 once stopped delivery for years: found by an adversarial trial).
 */
export const MAX_RETRY_AFTER_MS = 100 * 365 * 86_400_000;

/** Retry-After as seconds or an HTTP date: the wait asked (at most MAX_RETRY_AFTER_MS); undefined when absent or unreadable. */
export function parseRetryAfter(v: string | string[] | undefined, now = Date.now()): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) return undefined;
  if (/^\d+(\.\d+)?$/.test(s.trim())) return Math.min(Math.round(Number(s) * 1000), MAX_RETRY_AFTER_MS);
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : Math.min(Math.max(0, t - now), MAX_RETRY_AFTER_MS);
}

/** Characters kept past an excerpt's end before scrubbing: longer than any secret, so none is cut before it is found. */
const EXCERPT_MARGIN = 4096;

/**
 * A short excerpt of a body from outside for a message: its page title when it has one, else its
 * start, whitespace collapsed, at most `max` characters. `clean` (the scrubber) sees the text
 * past the cut: a token cut in half first would no longer be recognised (found by an adversarial
 * trial: an echoed token at the 80th character left its first letters in the log).
 */
export function pageExcerpt(text: string, clean: (s: string) => string, max = 80): string {
  const title = /<title[^>]*>([^<]{1,4096})<\/title>/i.exec(text)?.[1];
  const part = (title ?? text)
    .slice(0, max + EXCERPT_MARGIN)
    .trim()
    .replace(/\s+/g, ' ');
  return boundedText(clean(part), max);
}
