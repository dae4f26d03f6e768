/**
 * The simulated terminal's user writes (issue 16): USER_WRQ, DELETE_USER, the buffer upload
 * (PREPARE_DATA + CMD_DATA from the client) and SAVE_USERTEMPS. Each write is checked against the
 * terminal's limits and the fail-a-write fault before anything changes.
 */
import { CMD } from '../../sources/zk/protocol/constants.js';
import { ZkProtocolError } from '../../sources/zk/protocol/errors.js';
import type { ZkPacket } from '../../sources/zk/protocol/packet.js';
import { decodeUserTemplatesUpload } from '../../sources/zk/protocol/templates.js';
import { decodeUserRecord, isUserRecordSize, userNameBytes } from '../../sources/zk/protocol/user-records.js';
import type { SessionState, WriteUnit } from './session-state.js';
import { normalizeUser } from './terminal-state.js';
import type { SimUser } from './types.js';
import { WriteRefused } from './user-store.js';

/** The largest buffer a client may upload (a few thousand users with ten fingers each). */
const MAX_UPLOAD = 16 * 1024 * 1024;

/** Answers a user command, or returns null when `req` is not one. */
export function runUserCommand(s: SessionState, req: ZkPacket): WriteUnit[] | null {
  switch (req.command) {
    case CMD.USER_WRQ:
      return write(s, req, 'user written', () => {
        if (!isUserRecordSize(req.data.length)) throw new WriteRefused(`USER_WRQ with ${req.data.length} bytes`);
        const user = toSimUser(req.data);
        s.ctx.state.people.put(user);
        return { uid: user.uid, userId: user.userId };
      });
    case CMD.DELETE_USER:
      return write(s, req, 'user deleted', () => {
        if (req.data.length < 2) throw new WriteRefused('DELETE_USER without a uid');
        const uid = req.data.readUInt16LE(0);
        s.ctx.state.people.delete(uid);
        return { uid };
      });
    case CMD.PREPARE_DATA: {
      const size = req.data.length >= 4 ? req.data.readUInt32LE(0) : -1;
      if (size < 0 || size > MAX_UPLOAD) return [[s.reply(req, CMD.ACK_ERROR)]];
      s.upload = { size, parts: [], received: 0 };
      return [[s.reply(req, CMD.ACK_OK)]];
    }
    case CMD.DATA: {
      const up = s.upload;
      if (!up || up.received + req.data.length > up.size) {
        s.upload = null;
        return [[s.reply(req, CMD.ACK_ERROR)]];
      }
      up.parts.push(Buffer.from(req.data));
      up.received += req.data.length;
      return [[s.reply(req, CMD.ACK_OK)]];
    }
    case CMD.SAVE_USERTEMPS:
      return write(s, req, 'users and templates saved', () => {
        const up = s.upload;
        s.upload = null;
        if (!up || up.received !== up.size) throw new WriteRefused('SAVE_USERTEMPS without a complete upload');
        const decoded = decodeUserTemplatesUpload(
          Buffer.concat(up.parts, up.received),
          s.transport === 'udp' ? 28 : 72,
        );
        const users = decoded.records.map(toSimUser);
        s.ctx.state.people.putWithTemplates(users, decoded.templates);
        return { users: users.length, templates: decoded.templates.length };
      });
    default:
      return null;
  }
}

/** Runs one write: the fault switch first, then `apply`; ACK_OK, or ACK_ERROR when refused. */
function write(s: SessionState, req: ZkPacket, what: string, apply: () => object): WriteUnit[] {
  const { state, faults, logger } = s.ctx;
  if (faults.shouldFailWrite()) {
    const mode = faults.current.failWriteMode;
    logger.info({ session: s.id, command: req.command, mode }, 'fault: write failed');
    if (mode === 'error') return [[s.reply(req, CMD.ACK_ERROR)]];
    s.cutConnection = true;
    return [];
  }
  try {
    const detail = apply();
    state.usersChanged();
    // Never the templates themselves: they are biometric data.
    logger.info({ session: s.id, ...detail }, what);
    return [[s.reply(req, CMD.ACK_OK)]];
  } catch (e) {
    if (!(e instanceof WriteRefused || e instanceof RangeError || e instanceof ZkProtocolError)) throw e;
    logger.info({ session: s.id, command: req.command, reason: e.message }, 'write refused');
    return [[s.reply(req, CMD.ACK_ERROR)]];
  }
}

function toSimUser(raw: Buffer): SimUser {
  const u = decodeUserRecord(raw);
  if (u.userId === '' || u.userId === '0') throw new WriteRefused(`uid ${u.uid}: no user id`);
  return normalizeUser({
    uid: u.uid,
    userId: u.userId,
    name: u.name,
    privilege: u.privilege,
    card: u.card,
    password: u.password,
    // The bytes as sent: a terminal does not read them, it shows them in its own code page.
    ...(userNameBytes(raw).equals(Buffer.from(u.name, 'utf8')) ? {} : { nameBytes: userNameBytes(raw) }),
  });
}
