import type { DeliveryQueue } from './types.js';

/**
 * The `together` of a queue a wrapper passes on (event-loop labels, counting), so that the
 * settle-and-claim of a batch stays one transaction through every layer; `around` runs it (a
 * label). Nothing when the queue has none: the deliverer then writes each step on its own.
 */
export function withTogether(
  queue: DeliveryQueue,
  around: <T>(fn: () => T) => T = (fn) => fn(),
): Pick<DeliveryQueue, 'together'> {
  const together = queue.together?.bind(queue);
  return together ? { together: <T>(fn: () => T): T => around(() => together(fn)) } : {};
}

/**
 * The `takeInStep` of a queue a wrapper passes on (sink-deliveries.ts), run under `around` (a
 * label): without it the deliverer could not take a sink's backlog in a step at a time, and the
 * claim would take it all in one go.
 */
export function withTakeIn(
  queue: DeliveryQueue,
  around: <T>(fn: () => T) => T = (fn) => fn(),
): Pick<DeliveryQueue, 'takeInStep'> {
  const step = queue.takeInStep?.bind(queue);
  return step ? { takeInStep: () => around(step) } : {};
}
