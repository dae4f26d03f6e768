/**
 * Public types of the ZK terminal simulator (re-exported by index.ts).
 */
import type { Logger } from '../../util/logger.js';

/** How a session reaches the simulator. */
export type Transport = 'tcp' | 'udp';

/** A user enrolled on the simulated terminal. */
export interface SimUser {
  /** Internal index (u16), unique per terminal. */
  uid: number;
  /** The PIN / "user id" (up to 24 characters on TCP; numeric on the UDP layouts). */
  userId: string;
  name: string;
  /** 0 user, 14 admin. */
  privilege?: number;
  card?: number;
  password?: string;
  /**
   * The name field's bytes as the firmware keeps them, when they are not `name` in UTF-8: a
   * terminal sold with a Chinese, Arabic... firmware keeps names in its own code page (GBK...).
   * A terminal stores the bytes it is sent; a user written to the simulator keeps them here.
   */
  nameBytes?: Buffer;
}

/** A fingerprint template held by the simulated terminal (biometric data: never logged). */
export interface SimTemplate {
  /** The user's PIN; the terminal keys templates by the user's uid. */
  userId: string;
  /** Finger index 0-9. */
  finger: number;
  /** 1 valid (default), 3 duress on some firmware. */
  valid?: number;
  template: Buffer;
}

/** One attendance record in the terminal's log. */
export interface SimPunch {
  userId: string;
  /** Terminal wall clock, `YYYY-MM-DD HH:mm:ss` (years 2000-2099). */
  logTime: string;
  /** 0 password, 1 finger, 2 card... (default 1). */
  verifyType?: number;
  /** 0 in, 1 out, 2 break-out, 3 break-in, 4 OT-in, 5 OT-out (default 0). */
  state?: number;
}

/** Fault-injection switches; all can be changed while the simulator runs (setFaults). */
export interface TerminalFaults {
  /** Command codes whose reply is never sent (e.g. 1503 DATA_WRRQ). The command still takes effect. */
  dropReplyTo: number[];
  /** Drop only the first matching reply, then behave. */
  dropReplyOnce: boolean;
  /** CMD_DATA of a chunk split into packets of this many data bytes (e.g. 1008). */
  splitPackets: number | null;
  /** Pause after every written packet (node-zklib needs ~2-5 ms; 0 = coalesce freely). */
  pacingMs: number;
  /** Send a chunk's trailing ACK_OK in its own write (desyncs node-zklib). */
  separateTrailingAck: boolean;
  /**
   * UDP: send each chunk's datagrams out of order, as a Wi-Fi bridge or a bonded link delivers
   * them: the first two CMD_DATA swapped, and the trailing ACK_OK before the last CMD_DATA.
   */
  reorderDatagrams: boolean;
  /** Close the TCP connection right after replying to EXIT. */
  closeAfterExit: boolean;
  /** Refuse (close) TCP connections beyond this many concurrent ones. */
  maxSessions: number | null;
  /** Throttle TCP writes to this many bytes per second (packets then arrive in fragments). */
  slowLinkBytesPerSecond: number | null;
  /** Destroy the TCP connection once this many dataset bytes were sent on it (cut inside a packet). */
  disconnectMidTransferAfterBytes: number | null;
  /** Answer DATA_WRRQ with ACK_ERROR. */
  errorOnDataWrrq: boolean;
  /**
   * After this many user writes (USER_WRQ, DELETE_USER, SAVE_USERTEMPS) succeeded, the next one
   * fails and is not applied; then the switch turns itself off (one failure per setting).
   */
  failWriteAfter: number | null;
  /** How that write fails: 'disconnect' cuts the connection without a reply (UDP: no reply); 'error' answers ACK_ERROR. */
  failWriteMode: 'disconnect' | 'error';
  /**
   * Added to the record count GET_FREE_SIZES announces (0 = the truth). Above 0: firmware that
   * announces records it does not hand over; below 0: punches recorded between the count and the
   * download, as a busy terminal's log grows.
   */
  recordCountOffset: number;
  /**
   * Someone punches at the door just after the terminal answered GET_FREE_SIZES this many times
   * more (0: the next answer), once: the log then holds one record more than the count just said.
   * A disabled terminal (DISABLEDEVICE) refuses the punch at the door; the person punches again
   * once it is enabled. null: off.
   */
  doorPunchAfterCounts: number | null;
}

/** Firmware switches of the simulated terminal (`punchgate sim terminal --att-record ...`). */
export interface SimFirmware {
  /**
   * Size of its attendance records: 40 (TCP firmware), 16 (old firmware's extended records,
   * `TExtendAttLog`), 8 (black-and-white firmware, `TAttLog`: the user's internal index, not the
   * PIN), 49 (firmware of 2022 on, MB560-VL: the 40-byte record and 9 more bytes). Default: 40
   * over TCP, 16 over UDP.
   */
  attendanceRecord?: 40 | 49 | 16 | 8;
  /**
   * Its download sends the record before the last one again in place of the last: the count it
   * says is right, and one punch is never sent (a firmware fault; punchgate must not clear such a log).
   */
  doublesRecord?: boolean;
  /** 8-byte records: the byte their time starts at (3 as `TAttLog`; 4 on MA300-BT, ZEM500, Mini TA). Default 3. */
  timeByte8?: 3 | 4;
  /** 16-byte records: the byte holding the in/out state (8 as ZKTeco's struct; 9 the other way round). Default 8. */
  stateByte?: 8 | 9;
  /**
   * The code CONNECT is answered with in place of ACK_OK / ACK_UNAUTH (2025+ firmware: 6001).
   * Nothing but AUTH works until an AUTH is accepted.
   */
  connectReply?: number;
  /** After `connectReply`: 'accept' takes AUTH with the comm key (any, when none is set); 'refuse' refuses every AUTH. */
  connectAuth?: 'accept' | 'refuse';
  /**
   * The code the attendance log download (DATA_WRRQ of ATTLOG_RRQ) is answered with in place of
   * the log: push-only firmware refuses it so (a SpeedFace-H5L with ZAM180 Ver 3.3.2 answered 4989:
   * fananimi/pyzk issue #170), while it answers every other command.
   */
  attendanceRefusal?: number;
}

export interface TerminalSimOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port); TCP and UDP are bound to the same port. */
  port?: number;
  /** Listen on TCP (default true). `false` leaves the TCP port closed, so node-zklib falls back to UDP. */
  tcp?: boolean;
  /** Listen on UDP (default true). */
  udp?: boolean;
  serialNumber?: string;
  /** GET_VERSION answer; default 'Ver 6.60 Apr 28 2015'. */
  firmware?: string;
  /** Comm key; 0 or absent = none. */
  commKey?: number;
  /** How this terminal's firmware differs from the common case (issue 31): see SimFirmware. */
  firmwareQuirks?: SimFirmware;
  users?: SimUser[];
  punches?: SimPunch[];
  /** Fingerprint templates of `users` (by user id). */
  templates?: SimTemplate[];
  /** Users the terminal holds at most (default 3000): a write of one more is refused with ACK_ERROR. */
  userCapacity?: number;
  /** Fingerprint templates it holds at most (default 3000). */
  fingerprintCapacity?: number;
  /**
   * Attendance records it holds at most (default 100,000). A full log overwrites its oldest record
   * with each new punch (the "delete attendance records cyclically" setting), so its count stays.
   */
  logCapacity?: number;
  /** `~ZKFPVersion`, the fingerprint algorithm version (default '10'). */
  fpVersion?: string;
  /** Deterministic generated data, added after `users` / `punches`. */
  generate?: { users: number; punches: number; startTime?: string; seed?: number; fingersPerUser?: number };
  /**
   * The terminal's wall clock. A string is the time at start, then it runs with real time;
   * a function is asked each time. Default: the box's local time. SET_TIME overrides both.
   */
  clock?: string | (() => string);
  faults?: Partial<TerminalFaults>;
  /** Datasets smaller than this many bytes go direct over TCP (default 1024); UDP is always chunked. */
  directThreshold?: number;
  /** Chunk size used when a client asks for more in one DATA_RDY (default MAX_CHUNK). */
  chunkSize?: number;
  /** Where the simulator logs (default: silent). The comm key is never logged. */
  logger?: Logger;
}

export interface TerminalSim {
  port: number;
  host: string;
  punches(): SimPunch[];
  users(): SimUser[];
  /** Templates held, by user id (copies). */
  templates(): SimTemplate[];
  /** False between DISABLEDEVICE and ENABLEDEVICE (a disabled terminal stays so when the client goes away). */
  deviceEnabled(): boolean;
  /** Times REFRESHDATA was received. */
  refreshCount(): number;
  /** User writes applied (USER_WRQ, DELETE_USER, SAVE_USERTEMPS). */
  writeCount(): number;
  /** Appends to the log and pushes a real-time event to subscribed sessions. */
  addPunch(p: SimPunch): void;
  /** Adds a punch every `everyMs` (default pick: users in turn, at the terminal's clock). */
  startPunching(everyMs: number, pick?: () => SimPunch): void;
  stopPunching(): void;
  setFaults(f: Partial<TerminalFaults>): void;
  /** A swapped device answering at the same address. */
  setSerialNumber(sn: string): void;
  /** Times CLEAR_ATTLOG was received. */
  clearCount(): number;
  /** Times DISABLEDEVICE was received. */
  disableCount(): number;
  /** Open TCP sessions. */
  sessions(): number;
  stop(): Promise<void>;
}
