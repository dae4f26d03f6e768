import { deviceIdentity, unpadded, type Punch } from '../../punch.js';
import type { BioRow } from './client.js';

/**
 * A BioTime transaction row as a punch, and what else punchgate keeps of it.
 *
 * Identity: each terminal behind the server is its own device in the journal (`device` =
 * its `terminal_sn`), under the source's name as the terminal. A punch's id follows from the
 * device's serial where one is known (src/journal/punch-id.ts): so a punch read from the server
 * has the id it would have had read from the terminal itself (by ZK pull or push), and a site
 * that moves a terminal from the server to punchgate directly, or reads both for a while, never
 * sends a punch twice. The journal's terminal is the source (what the admin configured, and
 * what `punches --terminal` names); the devices under it are listed by the status (devices.ts).
 */

/** The device a row without a serial is filed under: never another terminal's. */
export const noSerialDevice = (source: string) => `no-serial@${source}`;

/** The longest text kept from a field that is not what it should be. */
const MAX_RAW = 40;

const text = (v: unknown): string =>
  typeof v === 'string' ? unpadded(v) : typeof v === 'number' && Number.isFinite(v) ? String(v) : '';

/** A name for the status and the page: printable, one line, short (the page escapes it as well). */
const shown = (v: unknown): string =>
  text(v)
    // eslint-disable-next-line no-control-regex -- control characters are what is replaced
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '?')
    .slice(0, 100);

/** "0".."5", "255" or a number as the ZK punch state; anything else unknown. */
function state(v: unknown): number | null {
  const s = text(v);
  return /^\d{1,3}$/.test(s) ? Number(s) : null;
}

/**
 * `punch_time` as recorded: the terminal's wall clock. `2024-05-01 08:00:00` as it is; the ISO
 * forms some builds send (`2024-05-01T08:00:00`, with fractions or an offset) by their wall-clock
 * part (the offset is not applied: the time is the terminal's, as the other kinds keep it);
 * a time without seconds (`2024-05-01 08:00`, as some builds write it) at :00 of its minute;
 * anything else kept as sent (cut short), which the journal quarantines, visibly.
 */
export function wallClockOf(v: unknown): string {
  // The usual form, as it is (checked by the journal): no pattern to run for each of 100,000 rows.
  if (typeof v === 'string' && v.length === 19 && v.charCodeAt(10) === 0x20 && v.charCodeAt(4) === 0x2d) return v;
  const s = text(v);
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  return m ? `${m[1]} ${m[2]}:${m[3]?.slice(1, 3) ?? '00'}` : s.slice(0, MAX_RAW);
}

/** The row's id when it is one (a positive safe integer; numeric strings accepted). */
export function rowId(row: BioRow): number | undefined {
  const v = row.id;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

export interface RowFacts {
  punch: Punch;
  id: number | undefined;
  serial: string;
  /** The row as sent, for what is read of it only now and then (names, upload_time: see uploadOf, namesOf). */
  row: BioRow;
}

/** `upload_time` as a wall clock ('' when missing or not one). */
export function uploadOf(row: BioRow): string {
  const upload = wallClockOf(row.upload_time);
  return /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(upload) ? upload : '';
}

/** The terminal's name and area as the server calls them, made fit to show. */
export function namesOf(row: BioRow): { alias: string; area: string } {
  return { alias: shown(row.terminal_alias), area: shown(row.area_alias) };
}

/** The code rule is the journal's (a code it refuses is recorded there, never dropped here). */
export function rowFacts(row: BioRow, source: string): RowFacts {
  const serial = text(row.terminal_sn);
  const verify = state(row.verify_type);
  return {
    punch: {
      terminal: source,
      device: serial ? deviceIdentity(serial) : noSerialDevice(source),
      // An emp_code that is missing or not text reaches the journal as such and is refused there (counted, shown).
      biometricCode: text(row.emp_code),
      logTime: wallClockOf(row.punch_time),
      verifyType: verify,
      punchState: state(row.punch_state),
    },
    id: rowId(row),
    serial,
    row,
  };
}
