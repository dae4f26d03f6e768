/**
 * Text from outside (an HRMS message, a code read from a terminal) made safe to print on a
 * terminal: control characters, DEL, C1 controls and the bidirectional overrides that can
 * reorder what is shown become visible escapes (`\x1b`, `\u202e`), so no answer can move the
 * cursor, change colours, clear the screen or disguise itself. Everything else is left as it is.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
