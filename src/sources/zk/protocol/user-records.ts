/**
 * User records in the layout a terminal serves (A5): 72 bytes (TCP firmware) or 28 bytes (old
 * firmware). Writes go back in that same layout; an update patches only the fields it changes,
 * so bytes this code does not interpret (group, time zones, password) stay as the terminal had them.
 */
import { decodeUser28, decodeUser72, encodeUser28, encodeUser72, type ZkUser } from './records.js';
import { readCBytes, writeCBytes, writeCString } from './strings.js';

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

/** `name`: the name's bytes in the terminal's character set, when it is not UTF-8 (written as they are). */
export function encodeUserRecord(u: ZkUser, size: UserRecordSize, name?: Buffer): Buffer {
  const record =
    size === 72 ? encodeUser72(name ? { ...u, name: '' } : u) : encodeUser28(name ? { ...u, name: '' } : u);
  return name ? patchUserRecord(record, { name }) : record;
}

/** The name field's bytes as the terminal keeps them (in its own character set). */
export function userNameBytes(raw: Buffer): Buffer {
  if (!isUserRecordSize(raw.length)) throw new RangeError(`a user record is 72 or 28 bytes, not ${raw.length}`);
  const l = LAYOUTS[raw.length];
  return Buffer.from(readCBytes(raw, l.nameAt, l.nameBytes));
}

export function decodeUserRecord(raw: Buffer): ZkUser {
  return raw.length === 28 ? decodeUser28(raw) : decodeUser72(raw);
}

/**
 * A copy of `raw` with the given fields replaced. A name as text is written in UTF-8 (cut at a
 * character when too long); as bytes (the terminal's own character set), as they are, and they must fit.
 */
export function patchUserRecord(
  raw: Buffer,
  patch: { name?: string | Buffer; card?: number; privilege?: number },
): Buffer {
  if (!isUserRecordSize(raw.length)) throw new RangeError(`a user record is 72 or 28 bytes, not ${raw.length}`);
  const l = LAYOUTS[raw.length];
  const out = Buffer.from(raw);
  if (Buffer.isBuffer(patch.name)) writeCBytes(out, patch.name, l.nameAt, l.nameBytes, 'name');
  else if (patch.name !== undefined) writeCString(out, patch.name, l.nameAt, l.nameBytes, 'name', true);
  if (patch.card !== undefined) out.writeUInt32LE(patch.card >>> 0, l.cardAt);
  if (patch.privilege !== undefined) out.writeUInt8(patch.privilege & 0xff, l.privilegeAt);
  return out;
}
