/**
 * Fingerprint templates on the wire, as pyzk reads and writes them (fananimi/pyzk zk/base.py):
 *
 * - Reading (`get_templates`): DATA_WRRQ(DB_RRQ, FCT_FINGERTMP) gives a dataset of u32 total size,
 *   then records of u16 size (6 + template bytes), u16 uid, u8 finger (0-9), u8 valid flag, template.
 * - Writing (`HR_save_usertemplates`): one buffer uploaded with PREPARE_DATA / CMD_DATA, then
 *   SAVE_USERTEMPS(110) with `<IHH 12, 0, 8>`. The buffer is u32 users length, u32 table length,
 *   u32 templates length, then the users (0x02 + the user record the terminal serves: 73 or 29
 *   bytes), the table (8 bytes per template: u8 2, u16 uid, u8 0x10 + finger, u32 offset into the
 *   templates part) and the templates (u16 length + template bytes).
 *
 * The template bytes are biometric data: they are carried, never printed.
 */
import { ZkProtocolError } from './errors.js';

export interface ZkTemplate {
  /** The user's internal index on the terminal. */
  uid: number;
  /** Finger index 0-9. */
  finger: number;
  /** 1 = valid; some firmware marks a duress finger 3. */
  valid: number;
  template: Buffer;
}

const TEMPLATE_HEADER = 6;
/** Largest template a record can carry (its u16 size includes the 6-byte header). */
export const MAX_TEMPLATE_BYTES = 0xffff - TEMPLATE_HEADER;

/** One record of the template dataset. */
export function encodeTemplateRecord(t: ZkTemplate): Buffer {
  if (t.template.length === 0 || t.template.length > MAX_TEMPLATE_BYTES) {
    throw new RangeError(`a template holds 1..${MAX_TEMPLATE_BYTES} bytes, not ${t.template.length}`);
  }
  const b = Buffer.alloc(TEMPLATE_HEADER + t.template.length);
  b.writeUInt16LE(b.length, 0);
  b.writeUInt16LE(t.uid, 2);
  b.writeUInt8(t.finger & 0xff, 4);
  b.writeUInt8(t.valid & 0xff, 5);
  t.template.copy(b, TEMPLATE_HEADER);
  return b;
}

export interface DecodedTemplates {
  templates: ZkTemplate[];
  /** Bytes after the last whole record (a size that runs past the end, or below the header). */
  malformedBytes: number;
}

/** Templates from a whole dataset (u32 size + records). Never throws on bad data. */
export function decodeTemplates(dataset: Buffer): DecodedTemplates {
  if (dataset.length < 4) return { templates: [], malformedBytes: dataset.length };
  const declared = dataset.readUInt32LE(0);
  const body = dataset.subarray(4, 4 + Math.min(declared, dataset.length - 4));
  const templates: ZkTemplate[] = [];
  let off = 0;
  while (body.length - off >= TEMPLATE_HEADER) {
    const size = body.readUInt16LE(off);
    if (size <= TEMPLATE_HEADER || off + size > body.length) break;
    templates.push({
      uid: body.readUInt16LE(off + 2),
      finger: body.readUInt8(off + 4),
      valid: body.readUInt8(off + 5),
      template: Buffer.from(body.subarray(off + TEMPLATE_HEADER, off + size)),
    });
    off += size;
  }
  return { templates, malformedBytes: dataset.length - 4 - off };
}

/** The data of SAVE_USERTEMPS after the upload (pyzk: `pack('<IHH', 12, 0, 8)`). */
export function saveUserTempsArgs(): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32LE(12, 0);
  b.writeUInt16LE(0, 4);
  b.writeUInt16LE(8, 6);
  return b;
}

/** One user and the fingers to save with it. */
export interface UserTemplatesEntry {
  /** The user record exactly as the terminal serves it (72 or 28 bytes). */
  record: Buffer;
  templates: readonly { finger: number; template: Buffer }[];
}

const USER_MARK = 0x02;
const TABLE_ENTRY = 8;
const FINGER_BASE = 0x10;

/** The buffer uploaded before SAVE_USERTEMPS. */
export function encodeUserTemplatesUpload(entries: readonly UserTemplatesEntry[]): Buffer {
  const users: Buffer[] = [];
  const table: Buffer[] = [];
  const fingers: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    if (e.record.length !== 72 && e.record.length !== 28) {
      throw new RangeError(`a user record is 72 or 28 bytes, not ${e.record.length}`);
    }
    users.push(Buffer.from([USER_MARK]), e.record);
    const uid = e.record.readUInt16LE(0);
    for (const f of e.templates) {
      if (!Number.isInteger(f.finger) || f.finger < 0 || f.finger > 9) throw new RangeError(`finger ${f.finger}: 0-9`);
      if (f.template.length === 0 || f.template.length > 0xffff) {
        throw new RangeError(`a template holds 1..65535 bytes, not ${f.template.length}`);
      }
      const entry = Buffer.alloc(TABLE_ENTRY);
      entry.writeUInt8(2, 0);
      entry.writeUInt16LE(uid, 1);
      entry.writeUInt8(FINGER_BASE + f.finger, 3);
      entry.writeUInt32LE(offset, 4);
      table.push(entry);
      const len = Buffer.alloc(2);
      len.writeUInt16LE(f.template.length, 0);
      fingers.push(len, f.template);
      offset += 2 + f.template.length;
    }
  }
  const u = Buffer.concat(users);
  const t = Buffer.concat(table);
  const f = Buffer.concat(fingers);
  const head = Buffer.alloc(12);
  head.writeUInt32LE(u.length, 0);
  head.writeUInt32LE(t.length, 4);
  head.writeUInt32LE(f.length, 8);
  return Buffer.concat([head, u, t, f]);
}

export interface DecodedUpload {
  /** The user records (without the 0x02 mark), 72 or 28 bytes each. */
  records: Buffer[];
  recordSize: 72 | 28;
  templates: ZkTemplate[];
}

/** The terminal's side of encodeUserTemplatesUpload. Throws ZkProtocolError on a malformed buffer. */
export function decodeUserTemplatesUpload(buf: Buffer, preferred: 72 | 28 = 72): DecodedUpload {
  if (buf.length < 12) throw new ZkProtocolError(`user/template upload of ${buf.length} bytes: no header`);
  const ulen = buf.readUInt32LE(0);
  const tlen = buf.readUInt32LE(4);
  const flen = buf.readUInt32LE(8);
  if (12 + ulen + tlen + flen !== buf.length) {
    throw new ZkProtocolError(`user/template upload: parts of ${ulen}+${tlen}+${flen} bytes in ${buf.length - 12}`);
  }
  if (tlen % TABLE_ENTRY !== 0) throw new ZkProtocolError(`template table of ${tlen} bytes is not whole entries`);
  const users = buf.subarray(12, 12 + ulen);
  const table = buf.subarray(12 + ulen, 12 + ulen + tlen);
  const fingers = buf.subarray(12 + ulen + tlen);
  const marked = (size: number) => {
    if (users.length % (size + 1) !== 0) return false;
    for (let o = 0; o < users.length; o += size + 1) if (users[o] !== USER_MARK) return false;
    return true;
  };
  const sizes = ([preferred, preferred === 72 ? 28 : 72] as const).filter(marked);
  const recordSize = sizes[0];
  if (recordSize === undefined)
    throw new ZkProtocolError(`user part of ${ulen} bytes is neither 73- nor 29-byte records`);
  const records: Buffer[] = [];
  for (let o = 0; o < users.length; o += recordSize + 1) {
    records.push(Buffer.from(users.subarray(o + 1, o + 1 + recordSize)));
  }
  const templates: ZkTemplate[] = [];
  for (let o = 0; o < table.length; o += TABLE_ENTRY) {
    const uid = table.readUInt16LE(o + 1);
    const fingerByte = table.readUInt8(o + 3);
    const at = table.readUInt32LE(o + 4);
    if (at + 2 > fingers.length) throw new ZkProtocolError(`template offset ${at} beyond the templates part`);
    const len = fingers.readUInt16LE(at);
    if (len === 0 || at + 2 + len > fingers.length) {
      throw new ZkProtocolError(`template of ${len} bytes at ${at} runs past the templates part`);
    }
    templates.push({
      uid,
      finger: fingerByte & 0x0f,
      valid: 1,
      template: Buffer.from(fingers.subarray(at + 2, at + 2 + len)),
    });
  }
  return { records, recordSize, templates };
}
