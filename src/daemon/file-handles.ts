import type { AdmsConfig } from '../config/adms.js';
import type { FileHandleShortage } from '../util/file-limit.js';

/**
 * The push receiver's share of the daemon's file handles. Each connection a terminal (or anyone)
 * opens to `adms.listen` takes one; so do the journal's files, the status log, the status page's
 * connections and each polled terminal's socket. Under a low limit (`ulimit -n 64`, a container's
 * or a unit's `LimitNOFILE=`) the receiver's default bounds (1024, 64 from one address) let a
 * crowd of connections take them all: the journal could not open its files, the status log was
 * not written, the status page refused, ZK terminals went "offline: check the cable" (a resource
 * trial), and nothing said why. So the receiver is held to what is left after the others' share.
 */

/** Handles kept for everything but connections: the journal, its WAL and lock files, logs, workers. */
const BASE_HANDLES = 32;
/** The status page's own connection bounds (web/connection-bounds.ts and its backstop). */
const STATUS_PAGE_HANDLES = 80;
/** Each configured terminal: its poll, real-time and HTTP connections at most. */
const PER_TERMINAL_HANDLES = 4;
/** The receiver keeps at least this many connections, however low the limit. */
const MIN_RECEIVER_CONNECTIONS = 8;

/** The receiver's connection bounds under `limit`, and the shortage when they had to be lowered. */
export function boundByFileHandles(
  adms: AdmsConfig,
  terminals: number,
  limit: number | undefined,
): { adms: AdmsConfig; shortage?: FileHandleShortage } {
  if (limit === undefined) return { adms };
  const others = BASE_HANDLES + STATUS_PAGE_HANDLES + PER_TERMINAL_HANDLES * terminals;
  // The receiver's own backstop lets one address's share past maxConnections (receiver.ts); that
  // share is never more than all (the receiver caps it so), so a lowered maxConnections counts
  // twice, not plus the default 64: lowering it, as the fix says, must be able to clear the alert.
  const perAddress = Math.min(adms.maxConnectionsPerAddress, adms.maxConnections);
  const wanted = others + adms.maxConnections + perAddress;
  if (wanted <= limit) return { adms };
  const fits = Math.floor((limit - others) / 2);
  const room = Math.max(MIN_RECEIVER_CONNECTIONS, fits);
  const maxConnections = Math.min(adms.maxConnections, room);
  return {
    adms: {
      ...adms,
      maxConnections,
      maxConnectionsPerAddress: Math.min(adms.maxConnectionsPerAddress, maxConnections),
    },
    shortage: {
      limit,
      configured: adms.maxConnections,
      maxConnections,
      wanted,
      // None when the terminals and the page alone take the limit: only raising it helps.
      ...(fits >= 1 ? { fitsWith: fits } : {}),
    },
  };
}
