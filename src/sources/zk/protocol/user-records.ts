/**
 * User records in the layout a terminal serves (A5): 72 bytes (TCP firmware) or 28 bytes (old
 * firmware). Writes go back in that same layout; an update patches only the fields it changes,
 * so bytes this code does not interpret (group, time zones, password) stay as the terminal had them.
 */
import { decodeUser28, decodeUser72, encodeUser28, encodeUser72, type ZkUser } from './records.js';
import { writeCString } from './strings.js';

export type UserRecordSize = 72 | 28;

interface Layout {
  nameAt: number;
  nameBytes: number;
  cardAt: number;
  privilegeAt: number;
}

const LAYOUTS: Record<UserRecordSize, Layout> = {
  72: { nameAt: 11, nameBytes: 24, cardAt: 35, privilegeAt: 2 },
  28: { nameAt: 8, nameBytes: 8, cardAt: 16, privilegeAt: 2 },
};

/** Bytes of UTF-8 a name field holds. */
export function nameBytesOf(size: UserRecordSize): number {
  return LAYOUTS[size].nameBytes;
}

/** Whether records of this size carry the user id as a number (28 bytes: u32). */
export function numericUserIds(size: UserRecordSize): boolean {
  return size === 28;
}

export function isUserRecordSize(n: number): n is UserRecordSize {
  return n === 72 || n === 28;
}

export function encodeUserRecord(u: ZkUser, size: UserRecordSize): Buffer {
  return size === 72 ? encodeUser72(u) : encodeUser28(u);
}

export function decodeUserRecord(raw: Buffer): ZkUser {
  return raw.length === 28 ? decodeUser28(raw) : decodeUser72(raw);
}

/** A copy of `raw` with the given fields replaced (names too long for the field are cut at a character). */
export function patchUserRecord(raw: Buffer, patch: { name?: string; card?: number; privilege?: number }): Buffer {
  if (!isUserRecordSize(raw.length)) throw new RangeError(`a user record is 72 or 28 bytes, not ${raw.length}`);
  const l = LAYOUTS[raw.length];
  const out = Buffer.from(raw);
  if (patch.name !== undefined) writeCString(out, patch.name, l.nameAt, l.nameBytes, 'name', true);
  if (patch.card !== undefined) out.writeUInt32LE(patch.card >>> 0, l.cardAt);
  if (patch.privilege !== undefined) out.writeUInt8(patch.privilege & 0xff, l.privilegeAt);
  return out;
}
