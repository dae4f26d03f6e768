import { malformedLine, redactSecrets, type MalformedLine } from './malformed.js';
import { isLogTime } from '../../punch.js';
import { codeProblem, unpadded } from '../../punch.js';
import { printable, quoted } from '../../util/terminal-text.js';
import { keyValueFields } from './key-values.js';
import { uploadLine } from './upload-line.js';
import { hasWholeTime, wallTimeOf } from './wall-time.js';
import { spaceSeparatedFields } from '../spaced-fields.js';

/**
 * The body of `POST /iclock/cdata?table=ATTLOG`: one punch per line, tab-separated fields
 * `PIN, time, status, verify, workcode, reserved...` (ADMS push protocol §9.1). The time is
 * the terminal's wall clock `YYYY-MM-DD HH:MM:SS`, kept as written (firmware that writes it
 * `2024-05-06T08:01:02` or without seconds is read alike: wall-time.ts).
 */
export interface AttlogRecord {
  /** 1-based line number in the body. */
  line: number;
  pin: string;
  logTime: string;
  /** Attendance state (0 in, 1 out, 2 break-out, 3 break-in, 4 OT-in, 5 OT-out, 255...), when given. */
  status: number | null;
  /** Verify mode (1 finger, 15 face, ...), when given. Unknown values are kept, never refused. */
  verify: number | null;
}

export type { MalformedLine } from './malformed.js';

export interface ParsedAttlog {
  records: AttlogRecord[];
  malformed: MalformedLine[];
  /** Line numbers of ID card checks (not punches: see `isIdCardCheck`). */
  idCardChecks: number[];
}

/** A resident ID card number as the vendor's ID card records carry it: 18 characters (the last may be X), or the older 15 digits. */
const ID_CARD_NUMBER = /^(?:\d{17}[\dXx]|\d{15})$/;

/**
 * Whether an ATTLOG line is an ID card check rather than a punch. Terminals with an ID card reader
 * (attendance PUSH 2.4.0 and later, vendor document V4.0 §11.7 "上传身份证考勤记录") add two fields
 * after Reserved2: the card's ID number and the record's type, `0` attendance, `1` a check of the
 * person against their ID card. A type 1 record's Status is that check's outcome (0 passed, 1
 * failed, 2 blacklisted), not a direction: read as a punch, a failed check became a check-out.
 * Only an ID number in the eighth field makes the ninth the type: in other firmware those fields
 * are MaskFlag (0, 1 or 255) and Temperature (`36.5`), never an ID number.
 */
export function isIdCardCheck(fields: readonly string[]): boolean {
  return fields.length >= 9 && fields[8]!.trim() === '1' && ID_CARD_NUMBER.test(fields[7]!.trim());
}

/** C0 control characters other than the tab that separates fields. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const CONTROL_BUT_TAB = /[\u0000-\u0008\u000a-\u001f\u007f]/;
const SMALL_INT = /^-?\d{1,6}$/;
// eslint-disable-next-line no-control-regex -- NUL padding is what is matched
const TRAILING_NULS = /\u0000+$/;
/**
 * A line that names its table first (`ATTLOG<TAB>1001<TAB>...`, `ATTLOG 1001<TAB>...`), as OPERLOG
 * lines name theirs (`USER `, `OPLOG `) and tabledata rows theirs: the parsers of several public
 * push servers read this "tagged" form beside the plain one. The tag is taken off; a line that is
 * the tag alone is the body's header, not a punch (it holds nothing to keep).
 */
const TABLE_TAG = /^ATTLOG(?:\t| +|$)/i;
/** A line of `key=value` fields (`PIN=1001<TAB>Time=...<TAB>Status=0<TAB>VerifyMode=1`), the form of USERINFO and tabledata rows. */
const KEYED = /^[A-Za-z][\w~]*=/;

/**
 * The key=value form as the positional one: PIN, time, status, verify (under the names firmware
 * gives them). Undefined when not every field is `key=value`: then the line is read by position
 * (a PIN may hold `=`: `A=1<TAB>2026-...` stays the punch of PIN `A=1`, as before).
 */
function keyedFields(raw: string): string[] | string | undefined {
  if (!KEYED.test(raw)) return undefined;
  const f = keyValueFields(raw);
  if (!f) return undefined;
  const pin = f.get('pin');
  if (pin === undefined) return 'no PIN= field';
  const first = (...keys: string[]) => keys.map((k) => f.get(k)).find((v) => v !== undefined) ?? '';
  return [pin, first('time', 'datetime'), first('status', 'state'), first('verify', 'verifymode', 'verifytype')];
}

const optionalInt = (field: string | undefined): number | null => {
  const f = field?.trim() ?? '';
  return SMALL_INT.test(f) ? Number(f) : null;
};

/**
 * Reads every line; a line that cannot be a punch (no tab, bad date, empty PIN, control
 * characters) is reported with its line number and never stops the others. Blank lines are
 * skipped silently; an ID card check is counted apart, never a punch. Never throws.
 */
export function parseAttlog(body: string): ParsedAttlog {
  const records: AttlogRecord[] = [];
  const malformed: MalformedLine[] = [];
  const idCardChecks: number[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    // Without its CR and NUL padding (upload-line.ts); a NUL anywhere else makes the line unreadable.
    const raw = uploadLine(lines[i]!);
    if (raw.trim() === '') continue;
    const line = i + 1;
    const bad = (reason: string) => malformed.push(malformedLine(line, reason, raw));
    if (CONTROL_BUT_TAB.test(raw)) {
      bad('control character in the line');
      continue;
    }
    const tag = TABLE_TAG.exec(raw);
    const rest = tag ? raw.slice(tag[0].length) : raw;
    if (rest.trim() === '') continue;
    const fields = keyedFields(rest) ?? (rest.includes('\t') ? rest.split('\t') : spaceSeparatedFields(rest));
    if (!fields) {
      bad('no tab between the fields');
      continue;
    }
    if (typeof fields === 'string') {
      bad(fields);
      continue;
    }
    const pin = unpadded(fields[0]!);
    const problem = codeProblem(pin);
    if (problem) {
      bad(problem);
      continue;
    }
    const logTime = wallTimeOf(fields[1]!.trim());
    if (!isLogTime(logTime)) {
      bad(`bad date "${printable(logTime, 30)}" (expected YYYY-MM-DD HH:MM:SS)`);
      continue;
    }
    if (isIdCardCheck(fields)) {
      idCardChecks.push(line);
      continue;
    }
    records.push({ line, pin, logTime, status: optionalInt(fields[2]), verify: optionalInt(fields[3]) });
  }
  return { records, malformed, idCardChecks };
}

/** PIN, time, status, verify: the fewest fields of a whole positional record (ADMS push protocol §9.1). */
const FEWEST_FIELDS = 4;

/** A line's fields as its form separates them: TABs, else runs of spaces (the date and time count as two). */
const fieldCount = (line: string) => (line.includes('\t') ? line.split('\t') : line.trim().split(/ +/)).length;

/**
 * Why the body's last line looks cut short, or undefined. A Content-Length shorter than the body
 * ends the body mid-line; when the rest comes in a later TCP packet, HTTP cannot tell, and the
 * cut line read as a punch: `08:00` of `08:00:31` is a punch at 08:00:00 (wall-time.ts reads
 * minute-only times). Every line of the captured uploads ends with LF (eSSL's E-Push Server's
 * stored bodies, shreyasubale/epush-docker, DeviceInfo/Device_Processed/stamp_9999_*.txt), but
 * no document says all firmware ends its last line so: a last line without its line end is
 * judged by its shape, cut when it is short of a whole record (its time without seconds, or fewer
 * fields than every other line of its form in the body, or, alone, than PIN, time, status and verify).
 * NUL padding at the end is no cut (parseAttlog drops it). Never throws.
 */
export function cutLastLine(body: string): string | undefined {
  const text = body.replace(TRAILING_NULS, '');
  if (text.endsWith('\n')) return undefined;
  const end = text.lastIndexOf('\n');
  const last = text.slice(end + 1);
  if (last.trim() === '') return undefined;
  const others = text
    .slice(0, Math.max(0, end))
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '' && l.includes('\t') === last.includes('\t'));
  // Shown in the log and the status: its secrets left out first, as a malformed line's are.
  const shown = quoted(redactSecrets(last), 40);
  // Minute-only firmware writes all its times so: a last line like its others is whole.
  const othersWhole = others.length === 0 || others.some(hasWholeTime);
  if (!hasWholeTime(last) && othersWhole) return `its last line ${shown} has no line end and no whole time`;
  // The fewest of the others: firmware writes each line alike, but a body may mix forms (tagged, keyed).
  const fewest = others.length > 0 ? Math.min(...others.map(fieldCount)) : last.includes('\t') ? FEWEST_FIELDS : 0;
  if (fieldCount(last) < fewest)
    return `its last line ${shown} has no line end and ${fieldCount(last)} fields where a whole one has ${fewest}`;
  return undefined;
}
