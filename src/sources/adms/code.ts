/**
 * Whether a terminal's user code (PIN) can be journalled as a biometric code. The one place
 * the ADMS receiver decides it, so that it can follow the project-wide rule (src/punch.ts)
 * once that exists.
 */
const MAX_CODE_LENGTH = 64;
/** C0 and C1 control characters, DEL, and U+FFFD (what invalid UTF-8 decodes to). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const CONTROL = /[\u0000-\u001f\u007f-\u009f\ufffd]/;
/** Bidirectional overrides and isolates: they make a code print as another one. */
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

/** Undefined when `code` is acceptable, else why not (in plain words). */
export function codeProblem(code: string): string | undefined {
  if (code === '') return 'empty PIN';
  if (code.length > MAX_CODE_LENGTH) return `PIN longer than ${MAX_CODE_LENGTH} characters`;
  if (CONTROL.test(code)) return code.includes('\ufffd') ? 'PIN is not valid UTF-8' : 'control character in the PIN';
  if (BIDI.test(code)) return 'bidirectional control character in the PIN';
  if (/\s/.test(code)) return 'blank inside the PIN';
  return undefined;
}

/** `text` with control characters escaped and cut to `max` characters: safe to put in a log or status line. */
export function printable(text: string, max = 80): string {
  const cut = text.length > max ? `${text.slice(0, max)}...` : text;
  // eslint-disable-next-line no-control-regex -- escaping control characters is the point here
  return cut.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) =>
    c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
