/**
 * One client session of the simulated terminal (a TCP connection, or a UDP peer):
 * its state, and the packets it answers a request with. Transport-agnostic: TCP and UDP
 * differ only in how the returned write units reach the wire.
 */
import { CMD, EF } from '../../sources/zk/protocol/constants.js';
import { encodePacket, type ZkPacket } from '../../sources/zk/protocol/packet.js';
import { encodeRealtimeTcp, encodeRealtimeUdp } from '../../sources/zk/protocol/realtime.js';
import { runCommand } from './commands.js';
import type { OutPacket, SessionState, SimContext, WriteUnit } from './session-state.js';
import type { SimPunch, Transport } from './types.js';

export type { OutPacket, SimContext, WriteUnit } from './session-state.js';

export class ZkSession implements SessionState {
  /** CONNECT seen; before it, everything but CONNECT is answered ACK_UNAUTH. */
  connected = false;
  authed: boolean;
  /** REG_EVENT flags (EF_*); 0 = no real-time events. */
  eventFlags = 0;
  /** Prepared by a chunked DATA_WRRQ, kept until FREE_DATA. */
  dataset: Buffer | null = null;
  /** EXIT was answered. */
  exited = false;
  upload: SessionState['upload'] = null;
  cutConnection = false;

  constructor(
    readonly id: number,
    readonly transport: Transport,
    readonly ctx: SimContext,
  ) {
    this.authed = ctx.state.commKey === 0;
  }

  /** A reply packet to `req`: echoes its reply id, carries this session's id. */
  reply(req: ZkPacket, command: number, data?: Buffer, sessionField = this.id): OutPacket {
    return { packet: encodePacket({ command, sessionId: sessionField, replyId: req.replyId, data }), datasetBytes: 0 };
  }

  /** The write units answering `req`, in order; [] when nothing is sent. */
  handle(req: ZkPacket): WriteUnit[] {
    // Clients acknowledge real-time events with ACK_OK (pyzk, SDK): never answered.
    if (req.command === CMD.ACK_OK) return [];
    const units = runCommand(this, req);
    if (this.ctx.faults.shouldDropReply(req.command)) {
      this.ctx.logger.info({ session: this.id, command: req.command }, 'fault: reply dropped');
      return [];
    }
    return units;
  }

  /** The real-time event for `punch`, or null when this session did not register for attendance events. */
  eventFor(punch: SimPunch): WriteUnit | null {
    if (!this.connected || !this.authed || (this.eventFlags & EF.ATTLOG) === 0) return null;
    const e = {
      userId: punch.userId,
      verifyType: punch.verifyType ?? 1,
      state: punch.state ?? 0,
      logTime: punch.logTime,
    };
    const data = this.transport === 'tcp' ? encodeRealtimeTcp(e) : encodeUdpEvent(e);
    // Session field = the event code (EF_ATTLOG), reply id 0 (A7).
    return [
      { packet: encodePacket({ command: CMD.REG_EVENT, sessionId: EF.ATTLOG, replyId: 0, data }), datasetBytes: 0 },
    ];
  }
}

/** The UDP form carries a u16 user id; a non-numeric or larger id is sent as its low 16 bits (0 if not a number). */
function encodeUdpEvent(e: { userId: string; verifyType: number; state: number; logTime: string }): Buffer {
  const n = /^\d+$/.test(e.userId) ? Number(e.userId) : 0;
  const id = Number.isSafeInteger(n) ? n % 0x10000 : 0;
  return encodeRealtimeUdp({ ...e, userId: String(id) });
}
