/**
 * Bulk download (A4): DATA_WRRQ prepares a dataset (small ones go direct over TCP),
 * each DATA_RDY is answered PREPARE_DATA, CMD_DATA packet(s), ACK_OK.
 */
import { CMD, FCT_FINGERTMP, FCT_USER, UDP_MAX_DATA } from '../../sources/zk/protocol/constants.js';
import { encodePacket, type ZkPacket } from '../../sources/zk/protocol/packet.js';
import type { DatasetKind } from './dataset.js';
import type { OutPacket, SessionState as ZkSession, WriteUnit } from './session-state.js';

/** Largest data per unsplit TCP CMD_DATA packet, as devices announce it in PREPARE_DATA (0xFFF8). */
const TCP_MAX_PACKET_DATA = 0xfff8;

/** DATA_WRRQ data: u8 1, u16 cmd, u32 fct, u32 ext (pyzk `<bhii`). */
function requestedKind(data: Buffer): DatasetKind | null {
  if (data.length < 3) return null;
  const cmd = data.readUInt16LE(1);
  if (cmd === CMD.ATTLOG_RRQ) return 'attendance';
  if (cmd === CMD.USERTEMP_RRQ) {
    const fct = data.length >= 7 ? data.readUInt32LE(3) : FCT_USER;
    return fct === FCT_USER ? 'users' : null;
  }
  // pyzk get_templates: read_with_buffer(CMD_DB_RRQ, FCT_FINGERTMP)
  if (cmd === CMD.DB_RRQ && data.length >= 7 && data.readUInt32LE(3) === FCT_FINGERTMP) return 'templates';
  return null;
}

export function startDownload(s: ZkSession, req: ZkPacket): WriteUnit[] {
  const { faults, state, directThreshold, logger, datasets } = s.ctx;
  const kind = requestedKind(req.data);
  if (faults.current.errorOnDataWrrq || kind === null) {
    if (kind === null)
      logger.debug({ session: s.id, data: req.data.toString('hex') }, 'DATA_WRRQ for an unknown dataset');
    return [[s.reply(req, CMD.ACK_ERROR)]];
  }
  if (kind === 'attendance' && state.quirks.attendanceRefusal !== undefined) {
    return [[s.reply(req, state.quirks.attendanceRefusal)]];
  }
  const dataset = datasets.get(kind, s.transport, state);
  logger.debug({ session: s.id, transport: s.transport, kind, bytes: dataset.length }, 'dataset prepared');
  // Small datasets go direct over TCP; over UDP node-zklib mis-decodes a direct reply, so always chunk.
  if (s.transport === 'tcp' && dataset.length < directThreshold) {
    return [[{ ...s.reply(req, CMD.DATA, dataset), datasetBytes: dataset.length }]];
  }
  s.dataset = dataset;
  const stat = Buffer.alloc(13);
  stat.writeUInt8(0, 0);
  stat.writeUInt32LE(dataset.length, 1);
  stat.writeUInt32LE(dataset.length, 5);
  stat.writeUInt32LE(0, 9);
  return [[s.reply(req, CMD.ACK_OK, stat)]];
}

/** Largest CMD_DATA payload per packet for this session right now. */
function packetLimit(s: ZkSession): number {
  const split = s.ctx.faults.current.splitPackets;
  if (s.transport === 'udp') return Math.min(split ?? UDP_MAX_DATA, UDP_MAX_DATA);
  return split ?? TCP_MAX_PACKET_DATA;
}

export function serveChunk(s: ZkSession, req: ZkPacket): WriteUnit[] {
  const ds = s.dataset;
  if (!ds || req.data.length < 8) return [[s.reply(req, CMD.ACK_ERROR)]];
  const start = req.data.readUInt32LE(0);
  const asked = req.data.readUInt32LE(4);
  // node-zklib asks for a 0-byte chunk when the size is an exact multiple of MAX_CHUNK.
  if (asked === 0) return [[s.reply(req, CMD.ACK_OK)]];
  if (start >= ds.length) return [[s.reply(req, CMD.ACK_ERROR)]];
  const length = Math.min(asked, s.ctx.chunkSize, ds.length - start);
  const limit = packetLimit(s);

  const prepare = Buffer.alloc(8);
  prepare.writeUInt32LE(length, 0);
  prepare.writeUInt32LE(limit, 4);
  const units: WriteUnit[] = [[s.reply(req, CMD.PREPARE_DATA, prepare)]];

  const packets: OutPacket[] = [];
  for (let off = 0, index = 0; off < length; off += limit, index++) {
    const data = ds.subarray(start + off, start + Math.min(off + limit, length));
    // Device captures carry the packet's index within the chunk in the session field.
    packets.push({
      packet: encodePacket({ command: CMD.DATA, sessionId: index, replyId: req.replyId, data }),
      datasetBytes: data.length,
    });
  }
  const ack = s.reply(req, CMD.ACK_OK);
  if (s.transport === 'udp' && s.ctx.faults.current.reorderDatagrams) return [...units, ...outOfOrder(packets, ack)];
  for (const p of packets.slice(0, -1)) units.push([p]);
  const last = packets[packets.length - 1] as OutPacket;
  // The trailing ACK glued to the last CMD_DATA: node-zklib would otherwise take it as its next reply.
  if (s.ctx.faults.current.separateTrailingAck) units.push([last], [ack]);
  else units.push([last, ack]);
  return units;
}

/** A chunk's datagrams as a reordering link delivers them: CMD_DATA #0 and #1 swapped, ACK_OK before the last. */
function outOfOrder(packets: OutPacket[], ack: OutPacket): WriteUnit[] {
  const order = [...packets];
  if (order.length >= 2) [order[0], order[1]] = [order[1] as OutPacket, order[0] as OutPacket];
  const last = order.pop() as OutPacket;
  return [...order.map((p) => [p]), [ack], [last]];
}
