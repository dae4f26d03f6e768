/** Session handshake (A3, A8): CONNECT; when the terminal answers ACK_UNAUTH, AUTH with the comm key. */
import { CMD, commandName, makeCommKey, ZkAuthError, ZkProtocolError, type ZkPacket } from '../protocol/index.js';
import type { ZkExchange } from './exchange.js';

/** Opens the session on `ex` (sets its session id). The key itself never appears in an error. */
export async function openSession(ex: ZkExchange, commKey: number): Promise<void> {
  const reply = await ex.request<ZkPacket>(CMD.CONNECT);
  ex.sessionId = reply.sessionId;
  if (reply.command === CMD.ACK_OK) return;
  if (reply.command !== CMD.ACK_UNAUTH) {
    throw new ZkProtocolError(`${ex.peer} answered CONNECT(1000) with ${commandName(reply.command)}`);
  }
  if (commKey === 0) throw new ZkAuthError(`${ex.peer} requires a comm key and none is configured`);
  const auth = await ex.request<ZkPacket>(CMD.AUTH, makeCommKey(commKey, ex.sessionId));
  if (auth.command !== CMD.ACK_OK) throw new ZkAuthError(`comm key refused by ${ex.peer}`);
}
