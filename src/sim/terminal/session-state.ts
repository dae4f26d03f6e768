/**
 * What a command handler sees of one client session (session.ts holds the class): the parts
 * shared by the session, the command handlers and the download code, kept apart so that
 * none of them imports another in a circle.
 */
import type { ZkPacket } from '../../sources/zk/protocol/packet.js';
import type { DatasetCache } from './dataset.js';
import type { FaultSwitches } from './faults.js';
import type { TerminalState } from './terminal-state.js';
import type { Logger } from '../../util/logger.js';
import type { Transport } from './types.js';

/** One ZK packet (header + data, no TCP prefix) and how many dataset bytes it carries. */
export interface OutPacket {
  packet: Buffer;
  datasetBytes: number;
}

/** Packets that go out in one TCP write (UDP sends each packet as its own datagram). */
export type WriteUnit = OutPacket[];

/** What every session of one simulator shares. */
export interface SimContext {
  state: TerminalState;
  faults: FaultSwitches;
  logger: Logger;
  directThreshold: number;
  chunkSize: number;
  datasets: DatasetCache;
}

/** One session's protocol state, as the command handlers read and change it. */
export interface SessionState {
  readonly id: number;
  readonly transport: Transport;
  readonly ctx: SimContext;
  /** CONNECT seen; before it, everything but CONNECT is answered ACK_UNAUTH. */
  connected: boolean;
  authed: boolean;
  /** REG_EVENT flags (EF_*); 0 = no real-time events. */
  eventFlags: number;
  /** Prepared by a chunked DATA_WRRQ, kept until FREE_DATA. */
  dataset: Buffer | null;
  /** EXIT was answered. */
  exited: boolean;
  /** A buffer being uploaded by the client (PREPARE_DATA, then CMD_DATA packets), kept until used or FREE_DATA. */
  upload: { size: number; parts: Buffer[]; received: number } | null;
  /** Set by a fault: the transport cuts the connection once this request was handled. */
  cutConnection: boolean;
  /** A reply packet to `req`: echoes its reply id, carries this session's id. */
  reply(req: ZkPacket, command: number, data?: Buffer, sessionField?: number): OutPacket;
}
