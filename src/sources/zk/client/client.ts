/**
 * ZkClient: one connection to one ZKTeco terminal (TCP or UDP, port 4370), one operation at a time.
 * Times stay wall-clock strings from end to end; the comm key never appears in logs or errors.
 */
import {
  CMD,
  decodeAttendances,
  DEFAULT_STATE_BYTE_16,
  decodeFreeSizes,
  decodeUsers,
  decodeZkTime,
  EF,
  encodeZkTime,
  FCT_USER,
  MAX_CHUNK,
  ZkConnectionError,
  ZkProtocolError,
  ZkTimeoutError,
  ZkUnauthorizedError,
  type DecodeDatasetOptions,
  type StateByte16,
  withUserIds,
  type DecodedDataset,
  type ZkAttendance,
  type ZkFreeSizes,
  type ZkPacket,
  type ZkRealtimeAttlog,
  type ZkUser,
  type UserTemplatesEntry,
  userNameBytes,
} from '../protocol/index.js';
import { NameCodec } from '../../../util/name-codec.js';
import { datasetSize, readDataset } from './bulk-read.js';
import {
  deleteUserAt,
  readTemplates,
  readUserTable,
  saveUserTemplates,
  writeUserRecord,
  type ZkTemplateRead,
  type ZkUserTable,
} from './user-writes.js';
import { SerialQueue, ZkExchange } from './exchange.js';
import { attlogEventHandler, safeCall } from './events.js';
import { logIn, openSession } from './handshake.js';
import { expectOk, optionValue, replyString } from './replies.js';
import { formatPeer, nullLogger, type ZkLogger, type ZkTransport, type ZkTransportKind } from './transport.js';
import { openTcpTransport } from './transport-tcp.js';
import { openUdpTransport } from './transport-udp.js';

export interface ZkClientOptions {
  host: string;
  port?: number;
  /** 'auto' = TCP, falling back to UDP when the TCP connect is refused or times out. */
  transport?: ZkTransportKind | 'auto';
  /** Comm key (secret), 0 = none. */
  commKey?: number;
  /** Limit for every exchange (and the TCP connect); on expiry the connection is torn down. */
  timeoutMs?: number;
  logger?: ZkLogger;
  /** Bytes per DATA_RDY request (<= MAX_CHUNK). */
  chunkSize?: number;
  /** Reply id of the first packet of each connection (tests use it to exercise wrap-around). */
  initialReplyId?: number;
  /** 16-byte attendance records: the byte that holds the in/out state (8 as ZKTeco lays it out; 9 on some firmware). */
  stateByte?: StateByte16;
  /** The character set of user names (the terminal's `encoding`: gbk, big5...); default utf-8. */
  encoding?: string;
}

/** Called while a download runs: bytes so far and total bytes of the dataset. */
export type ZkProgress = (received: number, total: number) => void;

/** What the attendance download found besides the records (for logging by the caller). */
export type ZkDownloadStats = Omit<DecodedDataset<unknown>, 'records'> & {
  /** Pieces of the download that did not come whole and were asked for again (a lossy link). */
  piecesAskedAgain: number;
};

export class ZkClient {
  readonly host: string;
  readonly port: number;
  /** `host:port`, for messages. */
  readonly peer: string;
  private readonly opts: Required<Omit<ZkClientOptions, 'logger' | 'initialReplyId' | 'encoding'>> & {
    initialReplyId?: number;
  };
  /** User names in the terminal's character set. */
  private readonly names: NameCodec;
  /** Records the terminal announced at the last getInfo: the log's size / this count is its record size. */
  private announcedRecords: number | undefined;
  private readonly logger: ZkLogger;
  private readonly queue = new SerialQueue();
  private ex: ZkExchange | null = null;
  private transport: ZkTransport | null = null;
  private lastStats: ZkDownloadStats | null = null;
  /** The open session logged in with the comm key (AUTH accepted). */
  private loggedIn = false;
  /** Replies dropped as another session's, over every connection of this client (see foreignPackets). */
  private foreign = 0;

  constructor(options: ZkClientOptions) {
    this.host = options.host;
    this.port = options.port ?? 4370;
    this.peer = formatPeer(this.host, this.port);
    this.logger = options.logger ?? nullLogger;
    this.opts = {
      host: this.host,
      port: this.port,
      transport: options.transport ?? 'auto',
      commKey: options.commKey ?? 0,
      timeoutMs: options.timeoutMs ?? 10_000,
      chunkSize: Math.max(1, Math.min(options.chunkSize ?? MAX_CHUNK, MAX_CHUNK)),
      initialReplyId: options.initialReplyId,
      stateByte: options.stateByte ?? DEFAULT_STATE_BYTE_16,
    };
    this.names = new NameCodec(options.encoding);
  }

  /** True while a session is open. */
  get connected(): boolean {
    return this.ex?.isOpen ?? false;
  }

  /** The transport of the open session, or null. */
  get transportKind(): ZkTransportKind | null {
    return this.connected ? (this.transport?.kind ?? null) : null;
  }

  /**
   * Packets that came with a reply id awaited but another session's id, and were not taken: another
   * device answering in the terminal's name (ZkExchange.fromSession). The caller says so once.
   */
  get foreignPackets(): number {
    return this.foreign;
  }

  /** Record size, malformed bytes and suspect records of the last getUsers/getAttendances. */
  get lastDownload(): ZkDownloadStats | null {
    return this.lastStats;
  }

  /** Opens the connection and the session (CONNECT, then AUTH when the terminal asks). Reconnects after a teardown. */
  connect(): Promise<void> {
    return this.queue.run(async () => {
      if (this.connected) return;
      const transport = await this.openTransport();
      const ex = new ZkExchange(transport, {
        timeoutMs: this.opts.timeoutMs,
        logger: this.logger,
        initialReplyId: this.opts.initialReplyId,
        onForeign: () => void this.foreign++,
      });
      this.transport = transport;
      this.ex = ex;
      try {
        this.loggedIn = await openSession(ex, this.opts.commKey);
      } catch (err) {
        ex.fail(err instanceof Error ? err : new Error(String(err)));
        throw err;
      }
      this.logger.debug({ peer: this.peer, transport: transport.kind, session: ex.sessionId }, 'ZK session open');
    });
  }

  getInfo(): Promise<ZkFreeSizes> {
    return this.op(async (ex) => {
      const r = expectOk(await ex.request<ZkPacket>(CMD.GET_FREE_SIZES), 'GET_FREE_SIZES(50)', this.peer);
      const sizes = decodeFreeSizes(r.data);
      this.announcedRecords = sizes.records;
      return sizes;
    });
  }

  getSerialNumber(): Promise<string> {
    return this.op(async (ex) => {
      const r = await ex.request<ZkPacket>(CMD.OPTIONS_RRQ, Buffer.from('~SerialNumber\0', 'ascii'));
      return optionValue(expectOk(r, 'OPTIONS_RRQ(~SerialNumber)', this.peer).data, '~SerialNumber', this.peer);
    });
  }

  getFirmware(): Promise<string> {
    return this.op(async (ex) =>
      replyString(expectOk(await ex.request<ZkPacket>(CMD.GET_VERSION), 'GET_VERSION(1100)', this.peer).data),
    );
  }

  /** All users (72-byte or 28-byte records). */
  getUsers(onProgress?: ZkProgress, hint?: DecodeDatasetOptions): Promise<ZkUser[]> {
    return this.op(async (ex) => {
      const again = { pieces: 0 };
      const data = await readDataset(
        ex,
        { command: CMD.USERTEMP_RRQ, fct: FCT_USER },
        this.readOptions(onProgress, again),
      );
      const decoded = decodeUsers(data, hint);
      const users = this.keepStats('users', decoded, again.pieces);
      if (this.names.isUtf8) return users;
      // Names in the terminal's own character set, from each record's name bytes.
      const size = decoded.recordSize;
      return users.map((u, i) => ({
        ...u,
        name: this.names.decode(userNameBytes(data.subarray(4 + i * size, 4 + (i + 1) * size))).text,
      }));
    });
  }

  /**
   * The whole attendance log (40-, 49-, 16- or 8-byte records), in the terminal's order. The record size
   * is derived from the data; `hint.count` (records from getInfo, the last one's by default) or
   * `hint.recordSize` settles it. 8-byte records name users by index: the user list names them.
   */
  getAttendances(onProgress?: ZkProgress, hint?: DecodeDatasetOptions): Promise<ZkAttendance[]> {
    return this.op(async (ex) => {
      const again = { pieces: 0 };
      const data = await readDataset(ex, { command: CMD.ATTLOG_RRQ }, this.readOptions(onProgress, again));
      const decoded = decodeAttendances(data, {
        count: this.announcedRecords,
        stateByte: this.opts.stateByte,
        ...hint,
      });
      const records = this.keepStats('attendance', decoded, again.pieces);
      if (decoded.recordSize !== 8 || records.length === 0) return records;
      const users = await readDataset(ex, { command: CMD.USERTEMP_RRQ, fct: FCT_USER }, this.readOptions());
      return withUserIds(records, decodeUsers(users).records);
    });
  }

  /**
   * Whether the terminal hands over its attendance log, without reading it (`check`): the bytes it
   * would send. Throws ZkDownloadRefusedError when it refuses (push-only firmware).
   */
  attendanceLogSize(): Promise<number> {
    return this.op((ex) => datasetSize(ex, { command: CMD.ATTLOG_RRQ }));
  }

  /** The terminal's wall clock, `YYYY-MM-DD HH:mm:ss`. */
  getTime(): Promise<string> {
    return this.op(async (ex) => {
      const r = expectOk(await ex.request<ZkPacket>(CMD.GET_TIME), 'GET_TIME(201)', this.peer);
      if (r.data.length < 4)
        throw new ZkProtocolError(`${this.peer} answered GET_TIME(201) with ${r.data.length} data bytes`);
      return decodeZkTime(r.data.readUInt32LE(0));
    });
  }

  /** Sets the terminal's wall clock (`YYYY-MM-DD HH:mm:ss`, 2000-2099). */
  setTime(logTime: string): Promise<void> {
    const data = Buffer.alloc(4);
    data.writeUInt32LE(encodeZkTime(logTime), 0);
    return this.op(async (ex) => {
      expectOk(await ex.request<ZkPacket>(CMD.SET_TIME, data), 'SET_TIME(202)', this.peer);
    });
  }

  clearAttendanceLog(): Promise<void> {
    return this.op(async (ex) => {
      expectOk(await ex.request<ZkPacket>(CMD.CLEAR_ATTLOG), 'CLEAR_ATTLOG(15)', this.peer);
    });
  }

  // ---- users and templates (issue 16) -------------------------------------------------

  /** A device option (OPTIONS_RRQ), e.g. `~ZKFPVersion`; null when the terminal does not know it (ACK_ERROR). */
  getOption(key: string): Promise<string | null> {
    return this.op(async (ex) => {
      const r = await ex.request<ZkPacket>(CMD.OPTIONS_RRQ, Buffer.from(`${key}\0`, 'latin1'));
      if (r.command === CMD.ACK_ERROR) return null;
      return optionValue(expectOk(r, `OPTIONS_RRQ(${key})`, this.peer).data, key, this.peer);
    });
  }

  /** Users with the raw record each came from, and the record size the terminal serves. */
  getUserTable(hint?: DecodeDatasetOptions): Promise<ZkUserTable> {
    return this.op(async (ex) => {
      const t = await readUserTable(ex, hint, this.readOptions());
      if (t.malformedBytes > 0)
        this.logger.warn({ peer: this.peer, bytes: t.malformedBytes }, 'user table: skipped bytes');
      return t;
    });
  }

  /** Every fingerprint template, as the terminal serves them (never logged: biometric data). */
  getTemplates(): Promise<ZkTemplateRead> {
    return this.op((ex) => readTemplates(ex, this.readOptions()));
  }

  /** USER_WRQ with a record in the layout the terminal serves (72 or 28 bytes). */
  writeUser(record: Buffer): Promise<void> {
    return this.op((ex) => writeUserRecord(ex, record));
  }

  /** DELETE_USER: the user at `uid` and its templates. */
  deleteUser(uid: number): Promise<void> {
    return this.op((ex) => deleteUserAt(ex, uid));
  }

  /** Uploads users with their fingerprint templates and saves them (SAVE_USERTEMPS). */
  saveUserTemplates(entries: readonly UserTemplatesEntry[]): Promise<void> {
    return this.op((ex) => saveUserTemplates(ex, entries));
  }

  /** REFRESHDATA: makes the terminal use what was written. */
  refreshData(): Promise<void> {
    return this.op(async (ex) => {
      expectOk(await ex.request<ZkPacket>(CMD.REFRESHDATA), 'REFRESHDATA(1013)', this.peer);
    });
  }

  /** DISABLEDEVICE: the terminal shows "working" and takes no punches or enrolments until enabled. */
  disableDevice(): Promise<void> {
    return this.op(async (ex) => {
      expectOk(await ex.request<ZkPacket>(CMD.DISABLEDEVICE, Buffer.alloc(4)), 'DISABLEDEVICE(1003)', this.peer);
    });
  }

  enableDevice(): Promise<void> {
    return this.op(async (ex) => {
      expectOk(await ex.request<ZkPacket>(CMD.ENABLEDEVICE), 'ENABLEDEVICE(1002)', this.peer);
    });
  }

  /**
   * Registers for attendance events (REG_EVENT, EF_ATTLOG); use a dedicated connection.
   * `onEvent` gets every punch; `onEnd` is called once when the connection ends, with the reason.
   * Other operations (e.g. getTime as a heartbeat) remain possible on the same connection.
   */
  subscribeRealtime(onEvent: (e: ZkRealtimeAttlog) => void, onEnd?: (err: Error) => void): Promise<void> {
    return this.op(async (ex) => {
      ex.onEvent = attlogEventHandler(ex, onEvent, this.logger);
      const flags = Buffer.alloc(4);
      flags.writeUInt32LE(EF.ATTLOG, 0);
      try {
        expectOk(await ex.request<ZkPacket>(CMD.REG_EVENT, flags), 'REG_EVENT(500)', this.peer);
      } catch (err) {
        ex.onEvent = null;
        throw err;
      }
      if (onEnd) ex.onClosed = (err) => safeCall(() => onEnd(err), this.logger, this.peer);
    });
  }

  /** EXIT, then close. Never throws: a peer that closed first, or no reply, is fine. */
  disconnect(): Promise<void> {
    return this.queue.run(async () => {
      const ex = this.ex;
      if (!ex?.isOpen) return;
      try {
        await ex.request<ZkPacket>(CMD.EXIT, undefined, undefined, Math.min(this.opts.timeoutMs, 2000));
      } catch (err) {
        this.logger.debug({ peer: this.peer, err: String(err) }, 'EXIT got no reply; closing anyway');
      }
      ex.close();
    });
  }

  /** Immediate teardown without EXIT (shutdown): the running operation is rejected. */
  destroy(): void {
    this.ex?.fail(new ZkConnectionError(`connection to ${this.peer} destroyed by the client`));
  }

  // ---- internals ----------------------------------------------------------------------

  private op<T>(fn: (ex: ZkExchange) => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      const ex = this.ex;
      const closed = ex ? ex.notOpen('this request') : null;
      // The timeout that closed it is the fault to say (see ZkExchange.notOpen).
      if (closed instanceof ZkTimeoutError) throw closed;
      if (!ex || closed)
        throw new ZkConnectionError(
          `the session with ${this.peer} was closed before this request (an earlier request failed)`,
          { cause: closed ?? undefined, code: closed instanceof ZkConnectionError ? closed.code : undefined },
        );
      try {
        return await fn(ex);
      } catch (e) {
        if (!(e instanceof ZkUnauthorizedError)) throw e;
        if (this.loggedIn || !ex.isOpen) {
          e.loggedIn = this.loggedIn;
          throw e;
        }
      }
      // "Not authorized" in a session opened without a login: firmware that wants the comm key
      // login before it hands anything over, though its CONNECT did not ask (a K50 with a
      // Communication Password: raihanafroz/zkteco issue #21). Logged in (key 0 too, as pyzk
      // does) and asked once more; a refused login is said as such, not before.
      await logIn(ex, this.opts.commKey);
      this.loggedIn = true;
      this.logger.info({ peer: this.peer }, 'the terminal asked for the comm key login after the session opened');
      try {
        return await fn(ex);
      } catch (e) {
        if (e instanceof ZkUnauthorizedError) e.loggedIn = true;
        throw e;
      }
    });
  }

  private async openTransport(): Promise<ZkTransport> {
    const { host, port, timeoutMs, transport } = this.opts;
    if (transport === 'udp') return openUdpTransport({ host, port, logger: this.logger });
    try {
      return await openTcpTransport({ host, port, connectTimeoutMs: timeoutMs, logger: this.logger });
    } catch (err) {
      const refused = err instanceof ZkConnectionError && err.code === 'ECONNREFUSED';
      if (transport === 'auto' && (refused || err instanceof ZkTimeoutError)) {
        this.logger.info({ peer: this.peer, reason: (err as Error).message }, 'TCP unavailable, trying UDP');
        return openUdpTransport({ host, port, logger: this.logger });
      }
      throw err;
    }
  }

  private readOptions(onProgress?: ZkProgress, again?: { pieces: number }) {
    const progress =
      onProgress && ((n: number, total: number) => safeCall(() => onProgress(n, total), this.logger, this.peer));
    return {
      chunkSize: this.opts.chunkSize,
      onProgress: progress,
      onAskedAgain: again && (() => void again.pieces++),
    };
  }

  private keepStats<T>(what: string, d: DecodedDataset<T>, piecesAskedAgain: number): T[] {
    const { records, ...decoded } = d;
    const stats = { ...decoded, piecesAskedAgain };
    this.lastStats = stats;
    if (stats.malformedBytes > 0)
      this.logger.warn({ peer: this.peer, what, ...stats }, 'skipped bytes that make no whole record');
    if (stats.suspectRecords > 0)
      this.logger.warn(
        { peer: this.peer, what, ...stats },
        'download holds records with an impossible date or no user id',
      );
    return records;
  }
}
