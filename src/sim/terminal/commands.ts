/**
 * The terminal's answer to each ZK command (A3). Bulk downloads live in download.ts.
 */
import { isLogTime } from '../../punch.js';
import { makeCommKey } from '../../sources/zk/protocol/commkey.js';
import { CMD } from '../../sources/zk/protocol/constants.js';
import { encodeFreeSizes } from '../../sources/zk/protocol/free-sizes.js';
import type { ZkPacket } from '../../sources/zk/protocol/packet.js';
import { decodeZkTime, encodeZkTime } from '../../sources/zk/protocol/time.js';
import { serveChunk, startDownload } from './download.js';
import { deviceOption } from './device-options.js';
import type { SessionState as ZkSession, WriteUnit } from './session-state.js';
import { runUserCommand } from './user-commands.js';

/** Commands that simply succeed (the simulator has nothing to do for them). */
const PLAIN_OK = new Set<number>([CMD.STARTVERIFY, CMD.CANCELCAPTURE]);

export function runCommand(s: ZkSession, req: ZkPacket): WriteUnit[] {
  const one = (command: number, data?: Buffer): WriteUnit[] => [[s.reply(req, command, data)]];
  const { state, logger } = s.ctx;

  const { connectReply, connectAuth } = state.quirks;
  if (req.command === CMD.CONNECT) {
    s.connected = true;
    s.authed = state.commKey === 0 && connectReply === undefined;
    s.eventFlags = 0;
    s.dataset = null;
    s.exited = false;
    // 2025+ firmware: its own code (6001) with the session id, where older firmware says ACK_OK or ACK_UNAUTH.
    if (connectReply !== undefined) return one(connectReply);
    return one(s.authed ? CMD.ACK_OK : CMD.ACK_UNAUTH);
  }
  if (req.command === CMD.AUTH) {
    if (!s.connected) return one(CMD.ACK_UNAUTH);
    s.authed = connectAuth !== 'refuse' && checkAuth(state.commKey, s.id, req.data);
    if (!s.authed) logger.warn({ session: s.id }, 'comm key refused');
    return one(s.authed ? CMD.ACK_OK : CMD.ACK_UNAUTH);
  }
  if (!s.connected || !s.authed) return one(CMD.ACK_UNAUTH);

  if (PLAIN_OK.has(req.command)) return one(CMD.ACK_OK);
  const userWrite = runUserCommand(s, req);
  if (userWrite) return userWrite;
  switch (req.command) {
    case CMD.DISABLEDEVICE:
    case CMD.ENABLEDEVICE:
      state.setEnabled(req.command === CMD.ENABLEDEVICE);
      return one(CMD.ACK_OK);
    case CMD.REFRESHDATA:
      state.refreshCount += 1;
      return one(CMD.ACK_OK);
    case CMD.EXIT:
      s.exited = true;
      s.eventFlags = 0;
      return one(CMD.ACK_OK);
    case CMD.GET_FREE_SIZES: {
      const users = state.userView().length;
      const records = state.punchView().length;
      const { userCapacity, fingerprintCapacity } = state.people;
      const fingerprints = state.people.templateCount();
      const data = encodeFreeSizes({
        users,
        fingerprints,
        records: Math.max(0, records + s.ctx.faults.current.recordCountOffset),
        admins: state.userView().filter((u) => (u.privilege ?? 0) >= 14).length,
        fingerprintCapacity,
        userCapacity,
        recordCapacity: state.logCapacity,
        fingerprintsFree: Math.max(0, fingerprintCapacity - fingerprints),
        usersFree: Math.max(0, userCapacity - users),
        recordsFree: Math.max(0, state.logCapacity - records),
      });
      // Between this answer and the next command (the count just said is one short now).
      if (s.ctx.faults.shouldPunchAtDoor()) state.punchAtDoor({ userId: '424242', logTime: state.clock.read() });
      return one(CMD.ACK_OK, data);
    }
    case CMD.GET_TIME: {
      const data = Buffer.alloc(4);
      data.writeUInt32LE(encodeZkTime(state.clock.read()), 0);
      return one(CMD.ACK_OK, data);
    }
    case CMD.SET_TIME: {
      const t = req.data.length >= 4 ? decodeZkTime(req.data.readUInt32LE(0)) : '';
      // The packed form reaches past 2099, which the terminal cannot store.
      if (!isLogTime(t) || t > '2099-12-31 23:59:59') return one(CMD.ACK_ERROR);
      state.clock.set(t);
      logger.info({ session: s.id, time: t }, 'clock set');
      return one(CMD.ACK_OK);
    }
    case CMD.FREE_DATA:
      s.dataset = null;
      s.upload = null;
      return one(CMD.ACK_OK);
    case CMD.CLEAR_ATTLOG:
      state.clearAttlog();
      logger.info({ session: s.id }, 'attendance log cleared');
      return one(CMD.ACK_OK);
    case CMD.REG_EVENT: {
      if (req.data.length < 2) return one(CMD.ACK_ERROR);
      s.eventFlags = req.data.length >= 4 ? req.data.readUInt32LE(0) : req.data.readUInt16LE(0);
      return one(CMD.ACK_OK);
    }
    case CMD.DATA_WRRQ:
      return startDownload(s, req);
    case CMD.DATA_RDY:
      return serveChunk(s, req);
    case CMD.OPTIONS_RRQ: {
      const end = req.data.indexOf(0);
      const key = req.data.toString('latin1', 0, end < 0 ? req.data.length : end);
      const value = deviceOption(key, state);
      return value === null ? one(CMD.ACK_ERROR) : one(CMD.ACK_OK, Buffer.from(`${key}=${value}\0`, 'latin1'));
    }
    case CMD.GET_VERSION:
      return one(CMD.ACK_OK, Buffer.from(`${state.firmware}\0`, 'latin1'));
    default:
      logger.debug({ session: s.id, command: req.command }, 'unknown command');
      return one(CMD.ACK_UNKNOWN);
  }
}

/** AUTH data must equal makeCommKey(key, session, ticks) with the ticks byte the client chose (data[2]). */
function checkAuth(commKey: number, sessionId: number, data: Buffer): boolean {
  if (commKey === 0) return true;
  if (data.length < 4) return false;
  const expected = makeCommKey(commKey, sessionId, data[2] ?? 0);
  return expected.equals(data.subarray(0, 4));
}
