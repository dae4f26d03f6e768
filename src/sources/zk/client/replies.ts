/** Turning reply codes into results or clear errors. */
import { CMD, commandName, ZkProtocolError, ZkUnauthorizedError, type ZkPacket } from '../protocol/index.js';

/** Throws unless `reply` is ACK_OK: ZkUnauthorizedError for ACK_UNAUTH, ZkProtocolError otherwise. */
export function expectOk(reply: ZkPacket, what: string, peer: string): ZkPacket {
  if (reply.command === CMD.ACK_OK) return reply;
  if (reply.command === CMD.ACK_UNAUTH) {
    // The session is open (CONNECT was answered): whether a login would help is ZkClient's to try.
    throw new ZkUnauthorizedError(`${peer} answered ${what} with ACK_UNAUTH (connection not authorized)`);
  }
  throw new ZkProtocolError(`${peer} answered ${what} with ${commandName(reply.command)}`);
}

const REFUSALS: ReadonlySet<number> = new Set([
  CMD.ACK_ERROR,
  CMD.ACK_UNKNOWN,
  CMD.ACK_ERROR_CMD,
  CMD.ACK_ERROR_INIT,
  CMD.ACK_ERROR_DATA,
]);

/**
 * A reply code that says no to a request: the error answers, or a code of the terminal's own that
 * the protocol does not name (4989 to a log download: fananimi/pyzk issue #170). A code the
 * protocol names for something else (PREPARE_DATA, an event...) is a confusion, not a refusal.
 */
export function isRefusal(command: number): boolean {
  return REFUSALS.has(command) || commandName(command).startsWith('CMD(');
}

/** A NUL-terminated string in reply data ("Ver 6.60 Apr 28 2015\0"). */
export function replyString(data: Buffer): string {
  const end = data.indexOf(0);
  return data.toString('utf8', 0, end < 0 ? data.length : end).trim();
}

/**
 * The value of an OPTIONS_RRQ reply: "~SerialNumber=ABC123\0" -> "ABC123"; a bare value (no `=`,
 * as pyzk also reads it) as it is. A reply naming another option, or cut inside an option's name
 * ("~Serial"), answers nothing asked: a ZkProtocolError, never taken for the value. (Taken for the
 * serial, it made the terminal another device, and its whole log was journalled again under it.)
 * So is a reply without the terminating NUL (cut inside the value).
 */
export function optionValue(data: Buffer, key: string, peer: string): string {
  // A terminal ends the value with a NUL. Without it the reply was cut on the way (a UDP datagram
  // cut short: "~SerialNumber=FAKE" of "FAKE0001"), and a cut value is no value: taken for the
  // serial, it made the terminal another device and its whole log was delivered a second time.
  if (data.indexOf(0) < 0) {
    throw new ZkProtocolError(
      `${peer} answered OPTIONS_RRQ(${key}) with ${JSON.stringify(data.toString('latin1', 0, 40))} without the NUL that ends a value: cut short on the way, not used`,
    );
  }
  const s = replyString(data);
  const eq = s.indexOf('=');
  const name = (eq < 0 ? '' : s.slice(0, eq)).trim().replace(/^~/, '').toLowerCase();
  const asked = key.replace(/^~/, '').toLowerCase();
  if (eq < 0 ? s.startsWith('~') : name !== asked) {
    throw new ZkProtocolError(
      `${peer} answered OPTIONS_RRQ(${key}) with ${JSON.stringify(s.slice(0, 40))}, not that option's value`,
    );
  }
  return eq < 0 ? s : s.slice(eq + 1);
}
