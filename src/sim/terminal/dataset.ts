/**
 * The terminal's users and attendance log as ZK datasets (u32 size + records, A5):
 * 72/40-byte records over TCP, 28/16-byte records over UDP (old-firmware layouts); the
 * firmware switches (SimFirmware) choose 16- or 8-byte attendance records on any transport.
 */
import { encodeTemplateRecord } from '../../sources/zk/protocol/templates.js';
import {
  encodeAttendance16,
  encodeAttendance8,
  encodeAttendance8TimeAt4,
  encodeAttendance40,
  encodeDataset,
  encodeUser28,
  encodeUser72,
  type ZkUser,
} from '../../sources/zk/protocol/records.js';
import { patchUserRecord } from '../../sources/zk/protocol/user-records.js';
import type { Transport } from './types.js';
import type { TerminalState } from './terminal-state.js';
import type { SimUser } from './types.js';

export type DatasetKind = 'users' | 'attendance' | 'templates';

/** The 28/16-byte layouts hold the user id as a number: a non-numeric one becomes 0 (as on numeric-PIN firmware). */
function numericOrZero(userId: string): string {
  return /^\d+$/.test(userId) && Number(userId) <= 0xffffffff ? userId : '0';
}

/** Cuts a string to at most `bytes` UTF-8 bytes without splitting a character. */
function fitBytes(s: string, bytes: number): string {
  let out = s;
  while (Buffer.byteLength(out) > bytes) out = out.slice(0, -1);
  return out;
}

function toZkUser(u: SimUser, transport: Transport): ZkUser {
  const narrow = transport === 'udp';
  return {
    uid: u.uid,
    privilege: u.privilege ?? 0,
    password: fitBytes(u.password ?? '', narrow ? 5 : 8),
    name: fitBytes(u.name, narrow ? 8 : 24),
    card: u.card ?? 0,
    group: 1,
    userId: narrow ? numericOrZero(u.userId) : u.userId,
  };
}

export function buildDataset(kind: DatasetKind, transport: Transport, state: TerminalState): Buffer {
  if (kind === 'templates') return encodeDataset(state.people.templateView().map(encodeTemplateRecord));
  if (kind === 'users') {
    const encode = transport === 'tcp' ? encodeUser72 : encodeUser28;
    return encodeDataset(
      state.userView().map((u) => {
        const record = encode(toZkUser(u, transport));
        // The firmware's own bytes (a legacy code page), cut to the field as the firmware would.
        return u.nameBytes
          ? patchUserRecord(record, { name: u.nameBytes.subarray(0, record.length === 28 ? 8 : 24) })
          : record;
      }),
    );
  }
  const uidOf = new Map<string, number>();
  for (const u of state.userView()) uidOf.set(u.userId, u.uid);
  const { attendanceRecord, stateByte, timeByte8 } = state.quirks;
  const size = attendanceRecord ?? (transport === 'tcp' ? 40 : 16);
  const records = state.punchView().map((p) => {
    const a = {
      uid: uidOf.get(p.userId) ?? 0,
      userId: size === 40 || size === 49 ? p.userId : numericOrZero(p.userId),
      verifyType: p.verifyType ?? 1,
      state: p.state ?? 0,
      logTime: p.logTime,
    };
    if (size === 8) return timeByte8 === 4 ? encodeAttendance8TimeAt4(a) : encodeAttendance8(a);
    if (size === 49) return Buffer.concat([encodeAttendance40(a), WIDE_TAIL]);
    return size === 40 ? encodeAttendance40(a) : encodeAttendance16(a, stateByte);
  });
  if (state.quirks.doublesRecord && records.length >= 2) records[records.length - 1] = records[records.length - 2]!;
  return encodeDataset(records);
}

/**
 * Encoded datasets reused until the log changes: encoding 100k records takes about a second,
 * and clients download the same log again and again.
 */
export class DatasetCache {
  private readonly cached = new Map<string, { version: number; dataset: Buffer }>();

  get(kind: DatasetKind, transport: Transport, state: TerminalState): Buffer {
    const key = `${kind}/${transport}`;
    const hit = this.cached.get(key);
    if (hit && hit.version === state.version) return hit.dataset;
    const dataset = buildDataset(kind, transport, state);
    this.cached.set(key, { version: state.version, dataset });
    return dataset;
  }
}

/** The 9 bytes a 49-byte record carries after the 40-byte layout (zero on the simulated terminal). */
const WIDE_TAIL = Buffer.alloc(9);
