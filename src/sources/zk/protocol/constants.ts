/**
 * ZKTeco "ZK" protocol constants (TCP/UDP port 4370). Values from docs/zk-protocol.md A2.
 */

/** Request and reply codes carried in the 16-bit command field of the ZK header. */
export const CMD = {
  CONNECT: 1000,
  EXIT: 1001,
  ENABLEDEVICE: 1002,
  DISABLEDEVICE: 1003,
  REFRESHDATA: 1013,
  GET_VERSION: 1100,
  AUTH: 1102,
  PREPARE_DATA: 1500,
  DATA: 1501,
  FREE_DATA: 1502,
  DATA_WRRQ: 1503,
  DATA_RDY: 1504,
  /** Read a table other than users and attendance (with FCT_FINGERTMP: the fingerprint templates). */
  DB_RRQ: 7,
  /** Write one user record (72 or 28 bytes, the layout the terminal serves). */
  USER_WRQ: 8,
  USERTEMP_RRQ: 9,
  OPTIONS_RRQ: 11,
  OPTIONS_WRQ: 12,
  ATTLOG_RRQ: 13,
  CLEAR_DATA: 14,
  CLEAR_ATTLOG: 15,
  /** Delete a user (u16 uid) and its templates. */
  DELETE_USER: 18,
  GET_FREE_SIZES: 50,
  STARTVERIFY: 60,
  CANCELCAPTURE: 62,
  /** Save users and their templates from the uploaded buffer (undocumented; pyzk `_CMD_SAVE_USERTEMPS`). */
  SAVE_USERTEMPS: 110,
  GET_TIME: 201,
  SET_TIME: 202,
  REG_EVENT: 500,
  ACK_OK: 2000,
  ACK_ERROR: 2001,
  ACK_DATA: 2002,
  ACK_RETRY: 2003,
  ACK_REPEAT: 2004,
  ACK_UNAUTH: 2005,
  ACK_UNKNOWN: 0xffff,
  ACK_ERROR_CMD: 0xfffd,
  ACK_ERROR_INIT: 0xfffc,
  ACK_ERROR_DATA: 0xfffb,
} as const;

export type CmdName = keyof typeof CMD;

/** Real-time event flags (REG_EVENT data, and the session field of an event packet). */
export const EF = {
  ATTLOG: 1,
  FINGER: 2,
  ENROLLUSER: 4,
  ENROLLFINGER: 8,
  BUTTON: 16,
  UNLOCK: 32,
  VERIFY: 128,
  FPFTR: 256,
  ALARM: 512,
} as const;

/** DATA_WRRQ function code for user records. */
export const FCT_USER = 5;

/** DATA_WRRQ function code for fingerprint templates (with DB_RRQ). */
export const FCT_FINGERTMP = 2;

/** Largest CMD_DATA payload per packet when uploading a buffer to the terminal (pyzk `_send_with_buffer`). */
export const UPLOAD_CHUNK = 1024;

/** Largest chunk requested per DATA_RDY (0xFFC0): chunk + 8-byte header stays below a u16 length. */
export const MAX_CHUNK = 65472;

/** Largest CMD_DATA payload per UDP datagram (pyzk reads with recv(1024 + 8)). */
export const UDP_MAX_DATA = 1024;

/** Every TCP packet starts with these four bytes, then a u32 LE length. */
export const TCP_MAGIC: Buffer = Buffer.from([0x50, 0x50, 0x82, 0x7d]);

export const USHRT_MAX = 65535;

/** Size of the ZK header (command, checksum, session id, reply id). */
export const HEADER_SIZE = 8;

/** Size of the TCP prefix (magic + u32 length). */
export const TCP_PREFIX_SIZE = 8;

const NAMES = new Map<number, string>(Object.entries(CMD).map(([k, v]) => [v, k]));

/** Readable name of a command code for logs and error messages, e.g. `GET_TIME(201)`. */
export function commandName(code: number): string {
  const n = NAMES.get(code);
  return n ? `${n}(${code})` : `CMD(${code})`;
}
