/** Session handshake (A3, A8): CONNECT; when the terminal answers ACK_UNAUTH, AUTH with the comm key. */
import { CMD, commandName, makeCommKey, ZkAuthError, ZkConnectRefusedError, type ZkPacket } from '../protocol/index.js';
import type { ZkExchange } from './exchange.js';

/**
 * Opens the session on `ex` (sets its session id); true when it logged in (AUTH accepted). The key
 * itself never appears in an error.
 *
 * Firmware of 2025 and later (MB10-VL, MB460 Plus, SenseFace 3A ZAM70 Ver3.3.12) answers CONNECT
 * with another code (6001) where older firmware says ACK_UNAUTH (2005). pyzk issue #253 traced
 * its failure to authenticating only on 2005, which is why the comm key seemed to make no
 * difference: such a reply is taken as "authenticate", with the session id it carries, and the
 * comm key (0 too: the terminal decides). When the terminal refuses that as well, nothing
 * published says what it wants: ZkConnectRefusedError, whose fault names the push route.
 */
export async function openSession(ex: ZkExchange, commKey: number): Promise<boolean> {
  const reply = await ex.request<ZkPacket>(CMD.CONNECT);
  ex.sessionId = reply.sessionId;
  if (reply.command === CMD.ACK_OK) return false;
  if (reply.command === CMD.ACK_UNAUTH) {
    // With no key configured, the login is still tried with key 0, as pyzk does (its password
    // defaults to 0 and it answers every ACK_UNAUTH with AUTH): firmware that asks for the login
    // with no Comm Key set takes key 0 (pyzk issue #170: a SpeedFace-H5L answered "try auth" and
    // then its users). Refused without trying, such a terminal could never be read, and the fix
    // said (set the Comm Key the terminal shows: 0) was the setting already there.
    await logIn(ex, commKey);
    return true;
  }
  const code = reply.command;
  const auth = await ex.request<ZkPacket>(CMD.AUTH, makeCommKey(commKey, ex.sessionId));
  if (auth.command === CMD.ACK_OK) return true;
  throw new ZkConnectRefusedError(
    `${ex.peer} answered CONNECT(1000) with ${commandName(code)} and AUTH(1102) with ${commandName(auth.command)}`,
    code,
  );
}

/** AUTH with the comm key (0 when none is configured); a refusal is a ZkAuthError that says which. */
export async function logIn(ex: ZkExchange, commKey: number): Promise<void> {
  const auth = await ex.request<ZkPacket>(CMD.AUTH, makeCommKey(commKey, ex.sessionId));
  if (auth.command === CMD.ACK_OK) return;
  if (commKey === 0) throw new ZkAuthError(`${ex.peer} requires a comm key and none is configured`);
  throw new ZkAuthError(`comm key refused by ${ex.peer}`);
}
