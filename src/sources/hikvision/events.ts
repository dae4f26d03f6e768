import { DEFAULT_HIKVISION_MINORS } from '../../config/terminals.js';
import { UNKNOWN_CARD_PREFIX, unpadded, type Punch } from '../../punch.js';
import { attendanceStatusState } from '../../punch/states.js';
import { splitIsoTime } from './client.js';
import type { Json } from './isapi.js';

/**
 * Which access-control events are punches, and what a punch carries. Only major 5 events with
 * an authentication-passed minor (the terminal's `minors`) are punches; the door events and
 * failures that come with them (5/21 unlocked, 5/22 closed, 5/39 fingerprint mismatch...) are not.
 */

/** The fields an event carries in the search (AcsEvent InfoList) or the alert stream, normalised. */
export interface AccessEvent {
  major: number;
  minor: number;
  /** The device's time with its offset, as sent. */
  time: unknown;
  employeeNo: string;
  cardNo: string;
  serialNo: number | undefined;
  attendanceStatus: unknown;
  /**
   * Alert stream only: false for an event the device re-sends from its stored log (on every
   * reconnect some firmware replays the whole log so), true or undefined for one happening now.
   */
  currentEvent?: boolean;
  /** Its major or minor code is there but not a number: refused with this reason, logged. */
  unreadable?: string;
}

const text = (v: unknown) => (typeof v === 'string' ? unpadded(v) : typeof v === 'number' ? String(v) : '');

/**
 * An event code or number as firmware sends it: a JSON number, or a numeric string (`"5"`,
 * `"75"`: some firmware quotes them in its HTTP Listening posts and alert stream, and XML has
 * nothing but text). Undefined when absent; `null` when present but not a whole number (garbage:
 * the event is refused with a log line, never taken for another kind of event in silence).
 */
function eventCode(v: unknown): number | null | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : null;
  if (typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v)) return Number(v.trim());
  return null;
}

/** The fields `names` of `o` that are present but not numbers, as a reason. */
function unreadableCodes(o: Json, names: readonly string[]): string | undefined {
  const bad = names.filter((n) => eventCode(o[n]) === null);
  if (bad.length === 0) return undefined;
  return bad.map((n) => `${n} ${JSON.stringify(String(o[n])).slice(0, 24)} is not a number`).join(', ');
}

const int = (v: unknown) => eventCode(v) ?? undefined;

/** An AcsEvent search row. */
export function fromSearchRow(row: Json): AccessEvent {
  return {
    major: int(row.major) ?? -1,
    minor: int(row.minor) ?? -1,
    time: row.time,
    // employeeNoString on current firmware; old firmware sends a numeric employeeNo.
    employeeNo: text(row.employeeNoString) || text(row.employeeNo),
    cardNo: text(row.cardNo),
    serialNo: int(row.serialNo),
    attendanceStatus: row.attendanceStatus,
    ...unreadableOf(row, ['major', 'minor']),
  };
}

function unreadableOf(o: Json, names: readonly string[]): { unreadable?: string } {
  const u = unreadableCodes(o, names);
  return u === undefined ? {} : { unreadable: u };
}

/** An alert-stream event (`eventType: AccessControllerEvent`); its time is the outer `dateTime`. */
export function fromAlert(alert: Json, inner: Json): AccessEvent {
  return {
    major: int(inner.majorEventType) ?? -1,
    minor: int(inner.subEventType) ?? -1,
    time: alert.dateTime,
    employeeNo: text(inner.employeeNoString) || text(inner.employeeNo),
    cardNo: text(inner.cardNo),
    serialNo: int(inner.serialNo),
    attendanceStatus: inner.attendanceStatus,
    ...(inner.currentEvent === false || inner.currentEvent === 'false' ? { currentEvent: false } : {}),
    ...unreadableOf(inner, ['majorEventType', 'subEventType']),
  };
}

/** The authentication passes by their HCNetSDK codes: what `minors` lists unless the site set it. */
export const KNOWN_PASSES: ReadonlySet<number> = new Set(DEFAULT_HIKVISION_MINORS);

/**
 * An authentication pass (a known pass code) that the terminal's `minors` leaves out: not a punch,
 * as the site chose, but said, so that a list written before a verification mode was used (face
 * and card, 5/60...) does not drop that mode's punches in silence.
 */
export function unlistedPass(e: AccessEvent, minors: ReadonlySet<number>): boolean {
  return !e.unreadable && e.major === 5 && KNOWN_PASSES.has(e.minor) && !minors.has(e.minor);
}

/** The admin's words for passes `minors` leaves out (see unlistedPass), counted by minor. */
export function unlistedWords(unlisted: Readonly<Record<number, number>>): string {
  const which = Object.entries(unlisted).map(([minor, n]) => `${n} of 5/${minor}`);
  return (
    `${which.join(', ')}: authentication passes that this terminal's \`minors\` setting leaves out, so not punches; ` +
    'add them to `minors` (or remove the setting for the default list) if they are attendance'
  );
}

export type Classified =
  | { kind: 'punch'; punch: Punch }
  | { kind: 'other' }
  /** A pass that cannot become a punch (no employee and no card): logged, counted. */
  | { kind: 'malformed'; reason: string };

/** The longest time text kept from a device that sends something that is not a time. */
const MAX_RAW_TIME = 40;

/**
 * A punch from an authentication pass: employeeNoString as the code (an unenrolled card as
 * `card:<number>`, so it is seen, never dropped), the device's wall clock (the local part of
 * `time`: the offset is not applied), the minor as verify type, attendanceStatus as punch state.
 * A time that does not parse is kept as sent: the journal quarantines it, visibly.
 */
export function classify(e: AccessEvent, terminal: string, device: string, minors: ReadonlySet<number>): Classified {
  if (e.unreadable) return { kind: 'malformed', reason: `event not read: ${e.unreadable}` };
  if (e.major !== 5 || !minors.has(e.minor)) return { kind: 'other' };
  const code = e.employeeNo || (e.cardNo ? `${UNKNOWN_CARD_PREFIX}${e.cardNo}` : '');
  if (!code) return { kind: 'malformed', reason: `pass ${e.major}/${e.minor} without an employee number or card` };
  const t = splitIsoTime(e.time);
  return {
    kind: 'punch',
    punch: {
      terminal,
      device,
      biometricCode: code,
      logTime: t ? t.wallClock : String(e.time ?? '').slice(0, MAX_RAW_TIME),
      verifyType: e.minor,
      punchState: attendanceStatusState(e.attendanceStatus),
    },
  };
}
