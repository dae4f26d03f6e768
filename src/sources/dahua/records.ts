import {
  instantOfWall,
  isLogTime,
  UNKNOWN_CARD_PREFIX,
  unpadded,
  utcWallClock,
  wallClockAt,
  type Punch,
} from '../../punch.js';

/**
 * Which Dahua access records are punches, and what a punch carries.
 *
 * A record of `AccessControlCardRec` (recordFinder.cgi) has RecNo, CreateTime (seconds), UserID,
 * CardNo, CardName, Type (Entry/Exit), Method (how the person was verified), Status (1 opened,
 * 0 refused), ErrorCode, AttendanceState (the attendance key pressed), Door, ReaderID. Sources:
 * Dahua's HTTP API for access control ("Find Access Control Records"), horilla-opensource/horilla
 * biometric/dahua.py (its key map of a record), and the field lists of other open clients.
 */
export interface DahuaRecord {
  recNo: number | undefined;
  /** CreateTime as sent: seconds, in the encoding of `recordClock`. */
  createTime: number | undefined;
  rawTime: string;
  userId: string;
  cardNo: string;
  type: string;
  method: number | null;
  /** '' when the record has no Status field. */
  status: string;
  /** ErrorCode: why the door refused (0 or absent: no error). */
  errorCode: number | undefined;
  attendanceState: number | null;
}

const int = (v: string | undefined): number | undefined =>
  v !== undefined && /^\s*-?\d{1,15}\s*$/.test(v) ? Number(v) : undefined;

/**
 * CreateTime as the device wrote it: seconds, or (Intelbras and other Dahua-made firmware, as the
 * fixtures of several public clients show: `records[0].CreateTime=2026-05-15 10:14:27`) its wall
 * clock as text. The text is the wall clock itself: with `recordClock: local` it is that wall
 * clock in seconds read as UTC, which is what the cursor and the search window hold. With `utc`
 * they hold real UTC seconds: the text is the instant its wall clock is in the terminal's
 * `timezone` (the zone punchgate shows the seconds form in, the other way round), the earlier
 * one in the hour the clocks go back (instantOfWall). The punch keeps the text as its time.
 */
function createTimeOf(v: string | undefined, clock: 'local' | 'utc', timezone: string | undefined): number | undefined {
  const n = int(v);
  if (n !== undefined || v === undefined) return n;
  const t = v.trim();
  if (clock === 'utc') {
    const ms = instantOfWall(t, timezone);
    return ms === undefined ? undefined : ms / 1000;
  }
  return isLogTime(t)
    ? Date.UTC(
        +t.slice(0, 4),
        +t.slice(5, 7) - 1,
        +t.slice(8, 10),
        +t.slice(11, 13),
        +t.slice(14, 16),
        +t.slice(17, 19),
      ) / 1000
    : undefined;
}

export function fromFields(
  f: ReadonlyMap<string, string>,
  clock: 'local' | 'utc' = 'local',
  timezone?: string,
): DahuaRecord {
  return {
    recNo: int(f.get('RecNo')),
    createTime: createTimeOf(f.get('CreateTime'), clock, timezone),
    rawTime: f.get('CreateTime') ?? '',
    userId: unpadded(f.get('UserID') ?? ''),
    cardNo: unpadded(f.get('CardNo') ?? ''),
    type: f.get('Type') ?? '',
    method: int(f.get('Method')) ?? null,
    status: (f.get('Status') ?? '').trim(),
    errorCode: int(f.get('ErrorCode')),
    attendanceState: int(f.get('AttendanceState')) ?? null,
  };
}

/**
 * AttendanceState as the device numbers it (0: none chosen), and the punch state punchgate keeps
 * for it (ZK's numbers: 0 in, 1 out, 2 break-out, 3 break-in, 4 overtime-in, 5 overtime-out).
 * Dahua's order is its NetSDK enum NET_ATTENDANCESTATE, the type of the access record's
 * emAttendanceState: 1 sign in, 2 go out, 3 back from going out, 4 sign out, 5 overtime sign in,
 * 6 overtime sign out. Not ZK's order shifted by one: read so, a sign-out was kept as a break-in.
 */
const ATTENDANCE_STATES: ReadonlyMap<number, number> = new Map([
  [1, 0],
  [2, 2],
  [3, 3],
  [4, 1],
  [5, 4],
  [6, 5],
]);

/**
 * The punch state of a record: its AttendanceState (see ATTENDANCE_STATES); without one, the
 * record's Type: Entry is in, Exit is out. Else unknown (null).
 */
export function punchStateOf(r: Pick<DahuaRecord, 'attendanceState' | 'type'>): number | null {
  const s = r.attendanceState === null ? undefined : ATTENDANCE_STATES.get(r.attendanceState);
  if (s !== undefined) return s;
  const t = r.type.trim().toLowerCase();
  if (t === 'entry') return 0;
  if (t === 'exit') return 1;
  return null;
}

/** The largest instant a JavaScript Date holds (ms either side of 1970): 275,760 years. */
const MAX_DATE_MS = 8.64e15;

/**
 * CreateTime as the device's wall clock. Seconds no date can hold (a 15-digit CreateTime from a
 * broken firmware) are kept as sent, which the journal quarantines: turned into a date, they
 * threw a RangeError in a named zone, which failed every poll of the terminal from then on.
 */
export function wallClockOf(seconds: number, recordClock: 'local' | 'utc', timezone: string | undefined): string {
  if (!(Math.abs(seconds * 1000) <= MAX_DATE_MS)) return String(seconds).slice(0, MAX_RAW_TIME);
  if (recordClock === 'utc') return wallClockAt(seconds * 1000, timezone);
  return utcWallClock(seconds * 1000);
}

/**
 * The punch's time: a CreateTime written as wall-clock text is that text, as written (turned into
 * seconds and back, an hour the zone skips would come back another hour); seconds as the
 * terminal's wall clock; anything else kept as sent (the journal quarantines it).
 */
function logTimeOf(r: DahuaRecord, ctx: { recordClock: 'local' | 'utc'; timezone?: string }): string {
  const text = r.rawTime.trim();
  if (isLogTime(text)) return text;
  return r.createTime !== undefined
    ? wallClockOf(r.createTime, ctx.recordClock, ctx.timezone)
    : r.rawTime.slice(0, MAX_RAW_TIME);
}

/** The longest time text kept from a device that sends something that is not a time. */
const MAX_RAW_TIME = 40;

export type Classified =
  | { kind: 'punch'; punch: Punch }
  | { kind: 'other' }
  /** An opening that cannot become a punch (no user and no card): logged, counted. */
  | { kind: 'malformed'; reason: string };

/**
 * Whether the door accepted the record: Status 1 (or true). A record without a Status field (the
 * example of Dahua's own API document, and devices other integrations describe) is accepted unless
 * its ErrorCode says why it was refused: dropping it dropped every punch of such a terminal, in
 * silence.
 */
function accepted(r: DahuaRecord): boolean {
  const s = r.status.toLowerCase();
  if (s === '') return r.errorCode === undefined || r.errorCode === 0;
  return s === '1' || s === 'true';
}

/**
 * A punch from a record the door accepted (see accepted): UserID as the code (a card not enrolled as
 * `card:<number>`, so it is seen, never dropped), the device's wall clock, Method as verify type,
 * the attendance state or entry/exit as punch state. A refused try is no punch. A time that is
 * not a number is kept as sent: the journal quarantines it, visibly.
 */
export function classify(
  r: DahuaRecord,
  ctx: { terminal: string; device: string; recordClock: 'local' | 'utc'; timezone?: string },
): Classified {
  if (!accepted(r)) return { kind: 'other' };
  const code = r.userId || (r.cardNo ? `${UNKNOWN_CARD_PREFIX}${r.cardNo}` : '');
  if (!code) return { kind: 'malformed', reason: `record ${r.recNo ?? '?'} without a user or card` };
  return {
    kind: 'punch',
    punch: {
      terminal: ctx.terminal,
      device: ctx.device,
      biometricCode: code,
      logTime: logTimeOf(r, ctx),
      verifyType: r.method,
      punchState: punchStateOf(r),
    },
  };
}
