import { createHash } from 'node:crypto';
import { boundedText } from './util/bounded-text.js';

/**
 * The one record that flows terminals -> sources -> journal -> delivery -> HRMS.
 *
 * A punch is kept exactly as the terminal recorded it: the time is the terminal's
 * wall clock as text, never converted through a time zone.
 */
export interface Punch {
  /** Terminal name from the config, or the import source ("import" when none is named). */
  terminal: string;
  /**
   * Identity of the physical device (its serial number) when the source knows it, else ''.
   * A swapped device answering at the same address keeps a separate log.
   */
  device?: string;
  /** The employee's code as the terminal knows it (ZK "user id" / PIN, card code...). */
  biometricCode: string;
  /** Wall-clock time as recorded: `YYYY-MM-DD HH:mm:ss`. */
  logTime: string;
  /** ZK verify type (0 password, 1 finger, 2 card, ...), when the source reports it. */
  verifyType?: number | null;
  /** ZK punch state (0 in, 1 out, 2 break-out, 3 break-in, 4 OT-in, 5 OT-out), when reported. */
  punchState?: number | null;
}

/**
 * The code under which a card that is not in its terminal's code map is journalled
 * (`card:0004521236`): it can never match a real employee, so the HRMS refuses it visibly,
 * and the status names such cards.
 */
export const UNKNOWN_CARD_PREFIX = 'card:';

/** Longest biometric code accepted from any source. */
export const MAX_CODE_LENGTH = 64;

/** Bidirectional controls (ALM, LRM, RLM, embeddings and overrides, isolates). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const CONTROL = /\p{Cc}/u;
/**
 * Invisible: format characters (zero-width, tags U+E0000..., the BOM) and whatever else Unicode
 * says is ignored when shown (Default_Ignorable_Code_Point: U+034F, Hangul fillers...); variation
 * selectors have a rule of their own (VARIATION), which names are not held to.
 */
const INVISIBLE = /(?!\p{Variation_Selector})[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
/** Variation selectors (U+FE00-FE0F, U+E0100-E01EF, Mongolian U+180B-180F): `1011` + U+FE0F looks like `1011`. */
const VARIATION = /\p{Variation_Selector}/u;
/** Combining and enclosing marks (Mn, Mc, Me): they change how the character before them looks. */
const MARK = /\p{M}/u;
const BLANK = /[\s\p{Z}]/u;
const LONE_SURROGATE = /\p{Cs}/u;
const PRIVATE_USE = /\p{Co}/u;
/** U+FDD0-FDEF and U+xFFFE/xFFFF in every plane: never characters of any text. */
const NONCHARACTER = /\p{Noncharacter_Code_Point}/u;
/** Code points this Unicode version (Node's ICU) does not assign: nothing a terminal can mean yet. */
const UNASSIGNED = /\p{Cn}/u;
/**
 * A decimal digit of another script than 0-9 (Arabic-Indic U+0660-0669, Devanagari U+0966-096F...):
 * `١٠١١` is the number 1011 to many an HRMS (Python's int(), which Frappe and Odoo run on, reads
 * any script's digits), while the journal would keep it apart from `1011`: one person, two codes.
 * Terminals store their user ids with 0-9 whatever the language of their screen.
 */
const OTHER_DIGIT = /(?![0-9])\p{Nd}/u;
/**
 * A compatibility character: one that Unicode itself says stands for another (NFKC): fullwidth
 * `１０１１` and `Ａ`, superscript `¹`, circled `①`, mathematical `𝟏`. It looks like (and to many
 * an HRMS is) the plain character, but the journal would keep it apart.
 */
function compatibilityCharacter(text: string): RegExpExecArray | null {
  if (text.normalize('NFKC') === text) return null;
  for (const c of text) {
    if (c.normalize('NFKC') !== c) return [c] as unknown as RegExpExecArray;
  }
  return null;
}

/** Longest serial number (device identity) kept as it is; a longer one is kept as a stand-in (deviceIdentity). */
export const MAX_SERIAL_LENGTH = 64;

/** Longest user name or card number a terminal reports that is kept. */
export const MAX_NAME_LENGTH = 64;

/**
 * The one rule of what a biometric code may contain, applied by every source that reads codes
 * (file imports, serial lines, ZK user ids and records, pushed logs, the simulators' data files):
 * 1 to 64 characters: letters, punctuation and symbols of any script, the digits 0-9, and nothing else.
 * Refused, by Unicode general category and property (CODE_REFUSALS): blanks (Zs, Zl, Zp, and
 * every other White_Space); control characters (Cc: NUL, CR, LF, ESC, DEL, C1...); bidirectional
 * controls and other invisible formatting characters (Cf and Default_Ignorable_Code_Point:
 * U+202E, U+200B, U+FEFF, tag characters...), variation selectors and combining marks (M), which
 * make a code look like another (`1011` + U+FE0F looks like `1011`); U+FFFD, what bytes that are
 * not UTF-8 become when read; unpaired surrogates (Cs), private-use characters (Co),
 * noncharacters and unassigned code points (Cn); compatibility characters (those NFKC turns into
 * another: fullwidth `１`, superscript `¹`, circled `①`) and decimal digits of other scripts than
 * 0-9 (`١٠١١`), which an HRMS may read as the plain `1011` while the journal keeps them apart.
 * A code is never repaired: the line or record is reported as bad, so that nothing reaches the
 * HRMS that the terminal did not mean.
 *
 * Returns why `code` is refused (plain words, with the offending character as U+XXXX), or
 * undefined when it is a good code.
 */
export function codeProblem(code: string): string | undefined {
  return textProblem(code, { what: 'biometric code', max: MAX_CODE_LENGTH });
}

/**
 * The same rule for any other text a device sends that names something (a serial number, a
 * terminal name in an imported file): `what` names it in the reason. With `blanks` (user names),
 * spaces between words are allowed, and an empty text too.
 */
export function textProblem(text: string, rule: { what: string; max: number; blanks?: boolean }): string | undefined {
  if (text === '') return rule.blanks ? undefined : `empty ${rule.what}`;
  if (text.length > rule.max) return `${rule.what} longer than ${rule.max} characters`;
  // On the path of every punch read: printable ASCII (nearly every real code) needs no further look.
  let ascii = true;
  for (let i = 0; i < text.length && ascii; i++) {
    const c = text.charCodeAt(i);
    ascii = (c > 0x20 || (c === 0x20 && rule.blanks === true)) && c < 0x7f;
  }
  if (ascii) return undefined;
  for (const [re, what, applies] of CODE_REFUSALS) {
    if (rule.blanks && !applies.names) continue;
    const m = re.exec(text);
    if (m) return `${rule.what} has ${what} (${unicodeName(m[0])})`;
  }
  if (rule.blanks) {
    const m = /[^\S ]/u.exec(text);
    if (m) return `${rule.what} has a blank other than a space (${unicodeName(m[0])})`;
  }
  return undefined;
}

/**
 * What a code may not contain, in the order reasons are given: decided by Unicode properties, not
 * a list of characters. `names: false` rules do not apply to names (`blanks`), whose scripts need
 * combining marks (Devanagari, Thai, a decomposed "José") and whose emoji carry variation selectors.
 */
const CODE_REFUSALS: readonly (readonly [Pick<RegExp, 'exec'>, string, { names: boolean }])[] = [
  [/\uFFFD/u, 'bytes that are not UTF-8', { names: true }],
  [CONTROL, 'a control character', { names: true }],
  [BIDI, 'a bidirectional control', { names: true }],
  [VARIATION, 'a variation selector', { names: false }],
  [INVISIBLE, 'an invisible formatting character', { names: true }],
  [MARK, 'a combining mark', { names: false }],
  [LONE_SURROGATE, 'a broken character', { names: true }],
  [PRIVATE_USE, 'a private-use character', { names: true }],
  [NONCHARACTER, 'a noncharacter', { names: true }],
  [UNASSIGNED, 'an unassigned character', { names: true }],
  [BLANK, 'a blank', { names: false }],
  [{ exec: compatibilityCharacter }, 'a compatibility form of another character', { names: false }],
  [OTHER_DIGIT, 'a digit of another script than 0-9', { names: false }],
];

/**
 * `text` without the ASCII spaces some firmware and exports pad fields with, and nothing else:
 * unlike String.trim, never a no-break space, a byte order mark or a line separator, which would
 * turn a code that breaks the rule (`1001` + U+00A0) into another, good-looking one.
 */
export function unpadded(text: string): string {
  return text.charCodeAt(0) === 0x20 || text.charCodeAt(text.length - 1) === 0x20 ? text.replace(/^ +| +$/g, '') : text;
}

/** Why a serial number a device reported cannot be kept as it is (undefined: it can; '' is "not known"). */
export function serialProblem(serial: string): string | undefined {
  return serial === '' ? undefined : textProblem(serial, { what: 'serial number', max: MAX_SERIAL_LENGTH });
}

/**
 * The identity a punch is kept under for the serial number its device reported: the serial itself
 * when it follows the code rule (at most 64 characters), else a stand-in made from it, the same
 * each time: up to 24 of its printable ASCII characters (others as `?`), `~`, and 16 hexadecimal
 * digits of its SHA-256. So a device that reports a 5,000-character serial, or one with control
 * characters, still has its punches kept apart and deduplicated, without its text stored on every
 * punch row or shown anywhere.
 */
export function deviceIdentity(serial: string): string {
  if (serialProblem(serial) === undefined) return serial;
  const shown = serial.slice(0, 24).replace(/[^\x21-\x7e]/g, '?');
  return `${shown}~${createHash('sha256').update(serial).digest('hex').slice(0, 16)}`;
}

/**
 * A user name or card number as a terminal reported it, as it is kept: as the terminal holds it,
 * cut to 64 characters. Never escaped here: the roster onto the terminals compares it with the
 * HRMS's name, and an escape kept as data (`\u200c` for the zero-width non-joiner of a Persian
 * name, a joiner in an emoji or an Indic name) differs from it, so every run rewrote that user.
 * Whatever shows a name escapes it then (util/terminal-text.ts: listings, reports, JSON).
 */
export function userText(text: string): string {
  return boundedText(text, MAX_NAME_LENGTH);
}

/** Whether a serial is a stand-in made by deviceIdentity. */
export const STAND_IN_SERIAL = /~[0-9a-f]{16}$/;

function unicodeName(c: string): string {
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

const LOG_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** True when `s` is a real calendar time written `YYYY-MM-DD HH:mm:ss`. */
export function isLogTime(s: string): boolean {
  // On the ingest path for every punch: plain arithmetic on the digits, no Date objects.
  if (s.length !== 19 || !LOG_TIME.test(s)) return false;
  const digit = (i: number) => s.charCodeAt(i) - 48;
  const two = (i: number) => digit(i) * 10 + digit(i + 1);
  const y = two(0) * 100 + two(2);
  const mo = two(5);
  const d = two(8);
  if (mo < 1 || mo > 12 || d < 1 || two(11) > 23 || two(14) > 59 || two(17) > 59) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const daysInMonth = mo === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31;
  return d <= daysInMonth;
}

/** Formats wall-clock fields as `YYYY-MM-DD HH:mm:ss`. */
export function formatLogTime(y: number, mo: number, d: number, h: number, mi: number, s: number): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(y, 4)}-${p(mo)}-${p(d)} ${p(h)}:${p(mi)}:${p(s)}`;
}

/**
 * The wall-clock time of instant `ms` in IANA zone `timeZone` (default: the process zone).
 * The process zone is read with the Date getters: Intl.DateTimeFormat pulls ICU's locale data
 * into memory (about 8 MB resident on Node 20), which a box whose terminals keep the box's zone
 * should not pay for. A named zone needs it; its formatter is built once and kept.
 */
export function wallClockAt(ms: number, timeZone?: string): string {
  if (timeZone === undefined) {
    const d = new Date(ms);
    return formatLogTime(d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds());
  }
  const parts = zoneFormatter(timeZone).formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return formatLogTime(get('year'), get('month'), get('day'), get('hour'), get('minute'), get('second'));
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * Seconds between two wall-clock strings, as if both were in one zone-less calendar
 * (used for clock skew and quarantine: both sides are read in the same zone).
 */
export function wallClockDiffSeconds(a: string, b: string): number {
  return (wallClockToEpochish(a) - wallClockToEpochish(b)) / 1000;
}

function wallClockToEpochish(s: string): number {
  const m = LOG_TIME.exec(s);
  if (!m) throw new Error(`not a log time: ${s}`);
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, se);
}

/**
 * The instant (epoch ms) whose wall clock in `timeZone` (default: the process zone) is `wall`,
 * the inverse of wallClockAt. A wall clock a zone shows twice (the hour the clocks go back) is
 * its earlier instant; one it never shows (the hour they go forward) the instant before the
 * jump: never later than the truth, so that a read position built on it never passes a record.
 * Undefined when `wall` is no log time.
 */
export function instantOfWall(wall: string, timeZone?: string): number | undefined {
  if (!isLogTime(wall)) return undefined;
  const asUtc = wallClockToEpochish(wall);
  // The zone's offset (wall minus instant) a day either side covers both sides of any transition.
  const offsetAt = (ms: number) => wallClockToEpochish(wallClockAt(ms, timeZone)) - ms;
  const candidates = [...new Set([offsetAt(asUtc - 86_400_000), offsetAt(asUtc + 86_400_000)])]
    .map((off) => asUtc - off)
    .sort((a, b) => a - b);
  return candidates.find((t) => wallClockAt(t, timeZone) === wall) ?? candidates[0];
}

/** The wall-clock time `seconds` later (earlier when negative), in the same zone-less calendar. */
export function shiftWallClock(s: string, seconds: number): string {
  return utcWallClock(wallClockToEpochish(s) + seconds * 1000);
}

/**
 * The log time of epoch ms read on the UTC calendar: the zone-less calendar that wall-clock
 * arithmetic works in (a wall clock taken as if it were UTC, moved, and read back).
 */
export function utcWallClock(ms: number): string {
  const d = new Date(ms);
  return formatLogTime(
    d.getUTCFullYear(),
    d.getUTCMonth() + 1,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
  );
}
