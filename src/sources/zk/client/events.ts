/** Real-time event packets -> callbacks; a callback that throws is logged, never left unhandled. */
import { CMD, decodeRealtimeAttlogs, EF, type ZkPacket, type ZkRealtimeAttlog } from '../protocol/index.js';
import type { ZkExchange } from './exchange.js';
import type { ZkLogger } from './transport.js';

export function safeCall(fn: () => void, logger: ZkLogger, peer: string): void {
  try {
    fn();
  } catch (err) {
    logger.warn({ peer, err: String(err) }, 'a ZK client callback threw');
  }
}

/** Handles one event packet (cmd REG_EVENT, session field = event code) received on `ex`. */
export function attlogEventHandler(
  ex: ZkExchange,
  onEvent: (e: ZkRealtimeAttlog) => void,
  logger: ZkLogger,
): (p: ZkPacket) => void {
  const peer = ex.peer;
  return (p) => {
    // The SDK acknowledges each event with ACK_OK, reply id 0; some firmware resends otherwise.
    ex.sendNoReply(CMD.ACK_OK, 0);
    if (p.sessionId !== EF.ATTLOG) {
      logger.debug({ peer, event: p.sessionId }, 'ignored a real-time event other than EF_ATTLOG');
      return;
    }
    let events: ZkRealtimeAttlog[];
    try {
      events = decodeRealtimeAttlogs(p.data);
    } catch (err) {
      logger.warn({ peer, err: String(err), bytes: p.data.length }, 'ignored a malformed real-time event');
      return;
    }
    for (const event of events) safeCall(() => onEvent(event), logger, peer);
  };
}
