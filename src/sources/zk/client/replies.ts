/** Turning reply codes into results or clear errors. */
import { CMD, commandName, ZkAuthError, ZkProtocolError, type ZkPacket } from '../protocol/index.js';

/** Throws unless `reply` is ACK_OK: ZkAuthError for ACK_UNAUTH, ZkProtocolError otherwise. */
export function expectOk(reply: ZkPacket, what: string, peer: string): ZkPacket {
  if (reply.command === CMD.ACK_OK) return reply;
  if (reply.command === CMD.ACK_UNAUTH) {
    throw new ZkAuthError(`${peer} refused ${what}: not authenticated (comm key required)`);
  }
  throw new ZkProtocolError(`${peer} answered ${what} with ${commandName(reply.command)}`);
}

/** A NUL-terminated string in reply data ("Ver 6.60 Apr 28 2015\0"). */
export function replyString(data: Buffer): string {
  const end = data.indexOf(0);
  return data.toString('utf8', 0, end < 0 ? data.length : end).trim();
}

/** The value of an OPTIONS_RRQ reply: "~SerialNumber=ABC123\0" -> "ABC123". */
export function optionValue(data: Buffer): string {
  const s = replyString(data);
  const eq = s.indexOf('=');
  return eq < 0 ? s : s.slice(eq + 1);
}
