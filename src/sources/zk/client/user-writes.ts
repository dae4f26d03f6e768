/**
 * The user side of the ZK protocol (issue 16): users read with their raw records, user writes
 * (USER_WRQ) and deletes (DELETE_USER), fingerprint templates read as pyzk's `get_templates` reads
 * them and saved as its `HR_save_usertemplates` saves them, and the buffer upload those saves use.
 */
import {
  CMD,
  decodeTemplates,
  decodeUsers,
  encodeUserTemplatesUpload,
  FCT_FINGERTMP,
  FCT_USER,
  isUserRecordSize,
  saveUserTempsArgs,
  UPLOAD_CHUNK,
  type DecodeDatasetOptions,
  type UserRecordSize,
  type UserTemplatesEntry,
  type ZkPacket,
  type ZkTemplate,
  type ZkUser,
} from '../protocol/index.js';
import { freeData, readDataset, type BulkReadOptions } from './bulk-read.js';
import type { ZkExchange } from './exchange.js';
import { expectOk } from './replies.js';

/** Users as the terminal serves them: decoded, and the raw record each came from. */
export interface ZkUserTable {
  /** 72 or 28; null when the terminal holds no user (the layout cannot be seen). */
  recordSize: UserRecordSize | null;
  users: { user: ZkUser; raw: Buffer }[];
  /** Bytes that made no whole record. */
  malformedBytes: number;
}

export async function readUserTable(
  ex: ZkExchange,
  hint: DecodeDatasetOptions | undefined,
  opts: BulkReadOptions,
): Promise<ZkUserTable> {
  const data = await readDataset(ex, { command: CMD.USERTEMP_RRQ, fct: FCT_USER }, opts);
  const d = decodeUsers(data, hint);
  const size = d.records.length > 0 && isUserRecordSize(d.recordSize) ? d.recordSize : null;
  const users = d.records.map((user, i) => ({
    user,
    raw: Buffer.from(data.subarray(4 + i * d.recordSize, 4 + (i + 1) * d.recordSize)),
  }));
  return { recordSize: size, users, malformedBytes: d.malformedBytes };
}

export interface ZkTemplateRead {
  templates: ZkTemplate[];
  malformedBytes: number;
}

/** Every fingerprint template on the terminal (DATA_WRRQ with DB_RRQ / FCT_FINGERTMP). */
export async function readTemplates(ex: ZkExchange, opts: BulkReadOptions): Promise<ZkTemplateRead> {
  const data = await readDataset(ex, { command: CMD.DB_RRQ, fct: FCT_FINGERTMP }, opts);
  return decodeTemplates(data);
}

/** USER_WRQ: creates or replaces the user at the record's uid. */
export async function writeUserRecord(ex: ZkExchange, record: Buffer): Promise<void> {
  if (!isUserRecordSize(record.length)) throw new RangeError(`a user record is 72 or 28 bytes, not ${record.length}`);
  const reply = await ex.request<ZkPacket>(CMD.USER_WRQ, record);
  expectOk(reply, `USER_WRQ(8) for uid ${record.readUInt16LE(0)}`, ex.peer);
}

/** DELETE_USER: removes the user at `uid` and its templates. */
export async function deleteUserAt(ex: ZkExchange, uid: number): Promise<void> {
  const data = Buffer.alloc(2);
  data.writeUInt16LE(uid, 0);
  expectOk(await ex.request<ZkPacket>(CMD.DELETE_USER, data), `DELETE_USER(18) for uid ${uid}`, ex.peer);
}

/** Users with their templates, in one upload and one SAVE_USERTEMPS. */
export async function saveUserTemplates(ex: ZkExchange, entries: readonly UserTemplatesEntry[]): Promise<void> {
  await uploadBuffer(ex, encodeUserTemplatesUpload(entries));
  const reply = await ex.request<ZkPacket>(CMD.SAVE_USERTEMPS, saveUserTempsArgs());
  expectOk(reply, `SAVE_USERTEMPS(110) for ${entries.length} user(s)`, ex.peer);
}

/**
 * Puts `data` in the terminal's buffer: FREE_DATA, PREPARE_DATA(u32 size), then CMD_DATA packets of
 * at most UPLOAD_CHUNK bytes, each answered ACK_OK (pyzk `_send_with_buffer`).
 */
export async function uploadBuffer(ex: ZkExchange, data: Buffer): Promise<void> {
  await freeData(ex);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(data.length, 0);
  expectOk(await ex.request<ZkPacket>(CMD.PREPARE_DATA, size), `PREPARE_DATA(1500) of ${data.length} bytes`, ex.peer);
  for (let off = 0; off < data.length; off += UPLOAD_CHUNK) {
    const part = data.subarray(off, Math.min(off + UPLOAD_CHUNK, data.length));
    const reply = await ex.request<ZkPacket>(CMD.DATA, part);
    expectOk(reply, `DATA(1501) with upload bytes ${off}..${off + part.length} of ${data.length}`, ex.peer);
  }
}
