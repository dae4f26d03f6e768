/**
 * Delay before reconnect attempt number `attempt` (0 = first retry): doubles from `minMs`
 * up to `maxMs`. No jitter: one gateway reopens one local device, there is no crowd to spread.
 */
export function reconnectDelay(attempt: number, minMs: number, maxMs: number): number {
  const max = Math.max(minMs, maxMs);
  // 2^attempt overflows to Infinity for large attempts; min() brings it back.
  return Math.min(max, minMs * 2 ** Math.min(attempt, 52));
}
