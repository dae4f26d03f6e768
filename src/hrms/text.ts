/** Longest text from outside (an HRMS message, a page snippet) kept in a message. */
const MAX_MESSAGE = 300;

/**
 * A text that came from outside, made safe to store and show: secrets scrubbed, control
 * characters and bidirectional overrides written as visible escapes (a message must not move
 * the cursor of the terminal that prints it, nor reorder what follows it), at most 300 characters.
 */
export function outsideText(s: string, scrub: (s: string) => string): string {
  const visible = scrub(s).replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const flat = visible.replace(/[\t\n]+/g, ' ');
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE)}...` : flat;
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(v: string | string[] | undefined, now = Date.now()): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) return undefined;
  if (/^\d+(\.\d+)?$/.test(s.trim())) return Math.round(Number(s) * 1000);
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}
