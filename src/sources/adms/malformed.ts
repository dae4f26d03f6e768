import { printable } from '../../util/terminal-text.js';

/** A line of an upload that could not be read. */
export interface MalformedLine {
  line: number;
  reason: string;
  /** The line, its secrets left out, control characters escaped and cut short: safe to log and show. */
  text: string;
}

/**
 * A password or key field of a terminal's line, in the forms firmware writes (`Passwd=99`,
 * `~ComKey=1234`, `password = x`, `"pwd":"x"`): its value is the whole quoted text, or runs to the
 * next tab, `&`, `,` or line end (the separators of push bodies), or to a space before another
 * `name=` field; a password with a space in it is left out whole.
 */
const SECRET_FIELD =
  /((?:^|[\t ,&{"'])~?\w*(?:passw(?:or)?d|pwd|commkey|comkey|secret)\w*["']?[ \t]*[=:][ \t]*)("[^"\n]*"|'[^'\n]*'|[^\t&,\n]*?(?=$|[\t&,\n]| [^\s=]+=))/gi;

/** Whether a line may hold such a field: the names SECRET_FIELD looks for, found at once. */
const SECRET_NAME = /passw(?:or)?d|pwd|commkey|comkey|secret/i;

/**
 * A fingerprint, face or palm template or a photo in a terminal's line: `TMP=` (FP, FACE), `Tmp=`
 * (BIODATA), `Content=` (USERPIC, BIOPHOTO), Security PUSH's `template=`, `tmp=`, `content=`,
 * and what the attendance PUSH document (V4.0, §11.6 ID card records, §12.9.3 enrolment
 * uploads) puts beside them: `FPTemplate1=`, `FPTemplate2=` (the card's fingerprints; Security
 * PUSH: `FP_Template1=`), `Photo=`, `PhotoJPG=` (its photo), `BIOPHOTO=` (the enrolment's photo). punchgate keeps no biometric data, not even in
 * a line kept raw because it could not be read (a record type it does not know, a separator it did
 * not expect): the value (base64, so without TAB, `&`, `,` or space) is left out. Keys that only
 * name a photo feature (`PhotoFunOn=`) are no photo.
 */
const BIOMETRIC_FIELD = /((?:^|[\t ,&])(?:tmp|\w*template\w*|content|(?:bio)?photo(?:jpg)?)[ \t]*=[ \t]*)[^\t&,\n ]+/gi;
const BIOMETRIC_NAME = /tmp|template|content|photo/i;

/**
 * `line` with the value of every password or key field, and every biometric template or photo,
 * replaced by `***`. Most lines name none: they skip SECRET_FIELD, which tries every word start
 * (a 2 MB upload of junk lines spent about 100 ms in it, the receiver's event loop held meanwhile).
 */
export function redactSecrets(line: string): string {
  const out = SECRET_NAME.test(line) ? line.replace(SECRET_FIELD, '$1***') : line;
  return BIOMETRIC_NAME.test(out) ? out.replace(BIOMETRIC_FIELD, '$1***') : out;
}

/**
 * A line that could not be read, as every log line, status field and kept copy shows it: its
 * secrets left out first (a value cut in half would no longer be recognised), then made printable.
 */
export function malformedLine(line: number, reason: string, raw: string, maxChars?: number): MalformedLine {
  const shown = redactSecrets(raw);
  return {
    line,
    reason: redactReason(reason),
    text: printable(maxChars === undefined ? shown : shown.slice(0, maxChars)),
  };
}

/**
 * The reason with the secrets of the line left out too: it quotes the field that could not be read
 * (`bad date "Passwd=99"`), and goes wherever the text goes (the log, the journal, the status, the
 * page: found by an adversarial trial). Each quoted part is redacted on its own, so that a value
 * runs to its closing quote, not over the words after it.
 */
function redactReason(reason: string): string {
  if (!SECRET_NAME.test(reason) && !BIOMETRIC_NAME.test(reason)) return reason;
  return reason
    .split(/("[^"]*")/)
    .map((part) =>
      part.startsWith('"') && part.endsWith('"') && part.length > 1
        ? `"${redactSecrets(part.slice(1, -1))}"`
        : redactSecrets(part),
    )
    .join('');
}
