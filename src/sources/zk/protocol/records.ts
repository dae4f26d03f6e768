/**
 * User and attendance records (A5) and whole datasets (u32 LE size + records).
 * Real-time events and free sizes live in their own files and are re-exported here.
 */
import { numericId } from './realtime.js';
import { isPrintable, readCString, writeCString } from './strings.js';
import { decodeZkTime, encodeZkTime, isRealZkTime } from './time.js';

export {
  decodeRealtimeAttlog,
  decodeRealtimeAttlogs,
  encodeRealtimeTcp,
  encodeRealtimeUdp,
  type ZkRealtimeAttlog,
} from './realtime.js';
export { decodeFreeSizes, encodeFreeSizes, FREE_SIZES_LENGTH, type ZkFreeSizes } from './free-sizes.js';

export interface ZkUser {
  /** Internal index on the terminal. */
  uid: number;
  /** 0 user, 14 admin (bit0 = disabled on some firmware). */
  privilege: number;
  password: string;
  name: string;
  card: number;
  group: number;
  /** The PIN / employee code (up to 24 bytes; numeric in 28-byte records). */
  userId: string;
}

export interface ZkAttendance {
  /** Internal user index (0 in 16-byte records, which do not carry it). */
  uid: number;
  userId: string;
  /** 0 password, 1 finger, 2 card, ... */
  verifyType: number;
  /** 0 in, 1 out, 2 break-out, 3 break-in, 4 OT-in, 5 OT-out. */
  state: number;
  /** Terminal wall clock, `YYYY-MM-DD HH:mm:ss`. */
  logTime: string;
  workCode?: number;
}

// ---- users ----------------------------------------------------------------------------

export function decodeUser72(b: Buffer, o = 0): ZkUser {
  return {
    uid: b.readUInt16LE(o),
    privilege: b.readUInt8(o + 2),
    password: readCString(b, o + 3, 8),
    name: readCString(b, o + 11, 24),
    card: b.readUInt32LE(o + 35),
    group: b.readUInt8(o + 39),
    userId: readCString(b, o + 48, 24),
  };
}

export function encodeUser72(u: ZkUser): Buffer {
  const b = Buffer.alloc(72);
  b.writeUInt16LE(u.uid, 0);
  b.writeUInt8(u.privilege, 2);
  writeCString(b, u.password, 3, 8, 'password');
  writeCString(b, u.name, 11, 24, 'name', true);
  b.writeUInt32LE(u.card >>> 0, 35);
  b.writeUInt8(u.group & 0xff, 39);
  writeCString(b, u.userId, 48, 24, 'user id');
  return b;
}

export function decodeUser28(b: Buffer, o = 0): ZkUser {
  return {
    uid: b.readUInt16LE(o),
    privilege: b.readUInt8(o + 2),
    password: readCString(b, o + 3, 5),
    name: readCString(b, o + 8, 8),
    card: b.readUInt32LE(o + 16),
    group: b.readUInt8(o + 21),
    userId: String(b.readUInt32LE(o + 24)),
  };
}

export function encodeUser28(u: ZkUser): Buffer {
  const b = Buffer.alloc(28);
  b.writeUInt16LE(u.uid, 0);
  b.writeUInt8(u.privilege, 2);
  writeCString(b, u.password, 3, 5, 'password');
  writeCString(b, u.name, 8, 8, 'name', true);
  b.writeUInt32LE(u.card >>> 0, 16);
  b.writeUInt8(u.group & 0xff, 21);
  b.writeUInt32LE(numericId(u.userId, 0xffffffff), 24);
  return b;
}

// ---- attendance -----------------------------------------------------------------------

export function decodeAttendance40(b: Buffer, o = 0): ZkAttendance {
  return {
    uid: b.readUInt16LE(o),
    userId: readCString(b, o + 2, 24),
    verifyType: b.readUInt8(o + 26),
    logTime: decodeZkTime(b.readUInt32LE(o + 27)),
    state: b.readUInt8(o + 31),
    workCode: b.readUInt32LE(o + 32),
  };
}

export function encodeAttendance40(a: ZkAttendance): Buffer {
  const b = Buffer.alloc(40);
  b.writeUInt16LE(a.uid, 0);
  writeCString(b, a.userId, 2, 24, 'user id');
  b.writeUInt8(a.verifyType & 0xff, 26);
  b.writeUInt32LE(encodeZkTime(a.logTime), 27);
  b.writeUInt8(a.state & 0xff, 31);
  b.writeUInt32LE((a.workCode ?? 0) >>> 0, 32);
  b.writeUInt8(0xff, 36); // as in device captures: 00 00 00 00 FF 00 00 00
  return b;
}

/**
 * Where a 16-byte record keeps its in/out state: byte 8 (the verify type then in byte 9), as
 * ZKTeco's own firmware lays the record out (`TExtendAttLog`: u32 PIN, time, `status`,
 * `verified`, 2 reserved, u32 workcode; ZEM200 flashdb.h, and the "Communication protocol
 * manual" of the standalone SDK, "extension attendance data record structure"). pyzk unpacks
 * the same bytes as `<I4sBB2sI` and calls byte 8 "status" and byte 9 "punch". A log published
 * from a Ver 6.60 (Aug 17 2015) terminal (bulentv/js_zklib issue #50) bears it out: byte 8 is 0
 * in the morning and 1 from the afternoon on, byte 9 always 0. A firmware that really keeps the
 * state in byte 9 is set per terminal (`stateByte: 9`).
 */
export type StateByte16 = 8 | 9;
export const DEFAULT_STATE_BYTE_16: StateByte16 = 8;

export function decodeAttendance16(b: Buffer, o = 0, stateByte: StateByte16 = DEFAULT_STATE_BYTE_16): ZkAttendance {
  return {
    uid: 0,
    userId: String(b.readUInt32LE(o)),
    logTime: decodeZkTime(b.readUInt32LE(o + 4)),
    verifyType: b.readUInt8(o + (stateByte === 8 ? 9 : 8)),
    state: b.readUInt8(o + stateByte),
    workCode: b.readUInt32LE(o + 12),
  };
}

export function encodeAttendance16(a: ZkAttendance, stateByte: StateByte16 = DEFAULT_STATE_BYTE_16): Buffer {
  const b = Buffer.alloc(16);
  b.writeUInt32LE(numericId(a.userId, 0xffffffff), 0);
  b.writeUInt32LE(encodeZkTime(a.logTime), 4);
  b.writeUInt8(a.state & 0xff, stateByte);
  b.writeUInt8(a.verifyType & 0xff, stateByte === 8 ? 9 : 8);
  b.writeUInt32LE((a.workCode ?? 0) >>> 0, 12);
  return b;
}

/**
 * 8-byte records of black-and-white firmware (ZKTeco `TAttLog`: u16 PIN, u8 verified, u32 time,
 * u8 status; pyzk reads them as `HB4sB` when the log's size / its record count is 8). They carry
 * the user's internal index, not the PIN: `userId` is that index as text until `withUserIds`
 * names the user (from the terminal's user list).
 */
export function decodeAttendance8(b: Buffer, o = 0): ZkAttendance {
  const uid = b.readUInt16LE(o);
  return {
    uid,
    userId: String(uid),
    verifyType: b.readUInt8(o + 2),
    logTime: decodeZkTime(b.readUInt32LE(o + 3)),
    state: b.readUInt8(o + 7),
  };
}

export function encodeAttendance8(a: ZkAttendance): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt16LE(a.uid & 0xffff, 0);
  b.writeUInt8(a.verifyType & 0xff, 2);
  b.writeUInt32LE(encodeZkTime(a.logTime), 3);
  b.writeUInt8(a.state & 0xff, 7);
  return b;
}

/**
 * 8-byte records with the time at byte 4: u16 uid, u8 verify type, u8 state, u32 time. Seen on
 * MA300-BT, ZEM500 and Mini TA terminals (fananimi/pyzk issues #56, #92, #99, #211: read with the
 * time at byte 3 their punches came out dated 2000, 2026 or 2083; the fix there is `<HBB4s`).
 * Published records (pyzk #99): `07002800a8eba71e` is uid 7 at 2016-01-01 19:02:00. Like the
 * other 8-byte form they name the user by internal index (see withUserIds).
 */
export function decodeAttendance8TimeAt4(b: Buffer, o = 0): ZkAttendance {
  const uid = b.readUInt16LE(o);
  return {
    uid,
    userId: String(uid),
    verifyType: b.readUInt8(o + 2),
    state: b.readUInt8(o + 3),
    logTime: decodeZkTime(b.readUInt32LE(o + 4)),
  };
}

export function encodeAttendance8TimeAt4(a: ZkAttendance): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt16LE(a.uid & 0xffff, 0);
  b.writeUInt8(a.verifyType & 0xff, 2);
  b.writeUInt8(a.state & 0xff, 3);
  b.writeUInt32LE(encodeZkTime(a.logTime), 4);
  return b;
}

/**
 * 8-byte records name the user by internal index: the user's PIN from the terminal's user list
 * (as pyzk does); an index not in the list stays the index, as the terminal's own reports show it.
 */
export function withUserIds(records: ZkAttendance[], users: readonly Pick<ZkUser, 'uid' | 'userId'>[]): ZkAttendance[] {
  const pin = new Map(users.map((u) => [u.uid, u.userId]));
  return records.map((r) => ({ ...r, userId: pin.get(r.uid) ?? r.userId }));
}

// ---- datasets -------------------------------------------------------------------------

/** u32 LE byte count followed by the records. */
export function encodeDataset(records: Buffer[]): Buffer {
  const size = Buffer.alloc(4);
  const body = Buffer.concat(records);
  size.writeUInt32LE(body.length, 0);
  return Buffer.concat([size, body]);
}

export interface DecodeDatasetOptions {
  /** Record count from GET_FREE_SIZES, when known: size / count names the record size. */
  count?: number;
  /** Force a record size (e.g. 40, 49, 16 or 8). */
  recordSize?: number;
  /** 16-byte attendance records: the byte holding the in/out state (default 8). */
  stateByte?: StateByte16;
}

export interface DecodedDataset<T> {
  records: T[];
  /** Record size used (bytes). */
  recordSize: number;
  /** The size announced in the dataset's u32 prefix. */
  declaredSize: number;
  /** Bytes that did not make a whole record, or lay beyond the announced size. */
  malformedBytes: number;
  /**
   * Whole records kept although they cannot be a real punch (impossible date, empty user id):
   * they are returned so that the journal can quarantine them and the counts still add up.
   */
  suspectRecords: number;
}

interface Layout<T> {
  size: number;
  decode: (b: Buffer, o: number) => T;
  plausible: (r: T) => boolean;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const USER_LAYOUTS: Layout<ZkUser>[] = [
  { size: 72, decode: decodeUser72, plausible: (u) => isPrintable(u.userId) },
  // The name may be in the terminal's own character set (GBK, Big5...), which reads here as U+FFFD:
  // only control bytes count against the layout, never a name that is no text in UTF-8.
  { size: 28, decode: decodeUser28, plausible: (u) => u.userId !== '0' && !CONTROL.test(u.name) },
];

const plausible8 = (a: ZkAttendance) => isRealZkTime(a.logTime) && a.uid !== 0 && a.state < 16 && laterThan2000(a);

const plausible40 = (a: ZkAttendance) => isRealZkTime(a.logTime) && isPrintable(a.userId);

/**
 * Records wider than 40 bytes that begin with the 40-byte layout. ZKTeco firmware of 2022 on
 * (MB560-VL, MB40-VL) keeps 49-byte records: u16 uid, char[24] user id, u8 verify, u32 packed
 * time, u8 state, then 17 more bytes (fananimi/pyzk issue #174 and PR #166, which steps through
 * the log by the record size and reads the first 40 bytes of each; PR #247: `<H24sB4sB12s5x>`).
 * Read 40 bytes apart, every record after the first is garbage: wrong codes and times journalled,
 * the real punches never.
 */
export const WIDE_ATTENDANCE_SIZES: readonly number[] = [49];

const wideLayout = (size: number): Layout<ZkAttendance> => ({
  size,
  decode: decodeAttendance40,
  plausible: plausible40,
});

const attLayouts = (stateByte: StateByte16 | undefined): Layout<ZkAttendance>[] => [
  { size: 40, decode: decodeAttendance40, plausible: plausible40 },
  ...WIDE_ATTENDANCE_SIZES.map(wideLayout),
  {
    size: 16,
    decode: (b, o) => decodeAttendance16(b, o, stateByte),
    plausible: (a) => isRealZkTime(a.logTime) && a.userId !== '0' && laterThan2000(a),
  },
  // Last: every 16- or 40-byte log also divides by 8, so 8 wins only when its records look more real.
  { size: 8, decode: decodeAttendance8, plausible: plausible8 },
  // The same size with the time at byte 4: the records' own bytes tell the two apart (read the
  // other way, the state byte is a byte of the time, and the time a shifted one).
  { size: 8, decode: decodeAttendance8TimeAt4, plausible: plausible8 },
];

/**
 * Records read at the wrong size put bytes of the neighbouring fields into the time: an 8-byte
 * log read as 16-byte records, or a 16-byte one read as 8, gives times in the year 2000 (a
 * shifted packed time, or an empty work code). No real log was kept then, so those do not count
 * as plausible when the size is guessed.
 */
const laterThan2000 = (a: ZkAttendance) => a.logTime >= '2001';

/** Users from a whole dataset: 72-byte (TCP firmware) or 28-byte records. Never throws on bad data. */
export function decodeUsers(dataset: Buffer, opts: DecodeDatasetOptions = {}): DecodedDataset<ZkUser> {
  return decodeDataset(dataset, USER_LAYOUTS, opts, (u) => u.userId !== '');
}

/**
 * Attendance from a whole dataset: 40-, 49-, 16- or 8-byte records (8-byte ones name users by index:
 * see withUserIds). Never throws on bad data.
 */
export function decodeAttendances(dataset: Buffer, opts: DecodeDatasetOptions = {}): DecodedDataset<ZkAttendance> {
  return decodeDataset(dataset, attLayouts(opts.stateByte), opts, (a) => isRealZkTime(a.logTime) && a.userId !== '');
}

function decodeDataset<T>(
  dataset: Buffer,
  layouts: Layout<T>[],
  opts: DecodeDatasetOptions,
  sound: (r: T) => boolean,
): DecodedDataset<T> {
  const first = layouts[0] as Layout<T>;
  if (dataset.length < 4) {
    return { records: [], recordSize: first.size, declaredSize: 0, malformedBytes: dataset.length, suspectRecords: 0 };
  }
  const declaredSize = dataset.readUInt32LE(0);
  const body = dataset.subarray(4, 4 + Math.min(declaredSize, dataset.length - 4));
  const layout = pickLayout(body, declaredSize, layouts, opts);
  const whole = Math.floor(body.length / layout.size);
  const records: T[] = new Array<T>(whole);
  let suspectRecords = 0;
  for (let i = 0; i < whole; i++) {
    const r = layout.decode(body, i * layout.size);
    if (!sound(r)) suspectRecords++;
    records[i] = r;
  }
  const malformedBytes = dataset.length - 4 - whole * layout.size;
  return { records, recordSize: layout.size, declaredSize, malformedBytes, suspectRecords };
}

function pickLayout<T>(body: Buffer, declared: number, layouts: Layout<T>[], opts: DecodeDatasetOptions): Layout<T> {
  const forced = layouts.find((l) => l.size === opts.recordSize);
  if (forced) return forced;
  let candidates = layouts.filter((l) => declared % l.size === 0);
  if (candidates.length === 0) candidates = layouts;
  const hinted = mostPlausibleOfSize(body, candidates, countHint(declared, candidates, opts.count));
  if (candidates.length === 1) return candidates[0] as Layout<T>;
  if (hinted) {
    // The announced count settles the size, whatever the bytes look like, unless its records
    // mostly look wrong and another size reads the same bytes as two or more records that all
    // look real. A terminal that announces more records than it hands over (firmware that lies,
    // or punches recorded between GET_FREE_SIZES and the download: an 8-byte log announced as
    // 1 record and downloaded as 2 is one 16-byte record by the count) would otherwise have its
    // log read at the wrong size: garbage punches journalled and delivered, the real ones never.
    if (plausibility(body, hinted) >= 0.5) return hinted;
    const real = candidates.find((l) => l !== hinted && body.length >= 2 * l.size && plausibility(body, l) === 1);
    return real ?? hinted;
  }
  // Several sizes divide the length (e.g. 80 bytes = 2 x 40 = 5 x 16): keep the layout whose
  // records look like real ones; ties go to the first (TCP firmware) layout.
  let best = candidates[0] as Layout<T>;
  let bestScore = -1;
  for (const l of candidates) {
    const score = plausibility(body, l);
    if (score > bestScore) {
      best = l;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The layout the announced record count names: size x count is the log's size, or, for punches
 * recorded between GET_FREE_SIZES and the download (a log only grows meanwhile), the largest size
 * that gives at least the count (an 8-byte log read as 16-byte records would have shrunk to half).
 */
function countHint<T>(declared: number, candidates: Layout<T>[], count: number | undefined): Layout<T> | undefined {
  if (!count || count <= 0) return undefined;
  return (
    candidates.find((l) => l.size * count === declared) ??
    candidates.find((l) => declared % l.size === 0 && declared / l.size >= count)
  );
}

/** Of the layouts of the hinted size (two 8-byte forms), the one whose records look most real; ties to the first. */
function mostPlausibleOfSize<T>(body: Buffer, candidates: Layout<T>[], hinted: Layout<T> | undefined) {
  if (!hinted) return undefined;
  let best = hinted;
  let bestScore = plausibility(body, hinted);
  for (const l of candidates) {
    if (l.size !== hinted.size || l === hinted) continue;
    const score = plausibility(body, l);
    if (score > bestScore) {
      best = l;
      bestScore = score;
    }
  }
  return best;
}

/** Share of sampled whole records that look real (at most 64 samples spread over the body). */
function plausibility<T>(body: Buffer, l: Layout<T>): number {
  const n = Math.floor(body.length / l.size);
  if (n === 0) return 0;
  const samples = Math.min(n, 64);
  let ok = 0;
  for (let i = 0; i < samples; i++) {
    const idx = Math.floor((i * n) / samples);
    if (l.plausible(l.decode(body, idx * l.size))) ok++;
  }
  return ok / samples;
}
