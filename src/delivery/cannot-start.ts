import type { Clock } from '../util/clock.js';
import { CANNOT_START, type DeliveryStateAccess } from './health.js';

/** Whether a delivery state says its sink could not be started (status, alerts, /readyz). */
export function cannotStart(d: { failingSince: number | null; lastError: string | null }): boolean {
  return d.failingSince !== null && (d.lastError?.startsWith(CANNOT_START) ?? false);
}

/**
 * Records in the sink's delivery state that its sender could not be built: failing since now (or
 * since it first failed), with the problem and its fix as the last error. Without this the sink
 * had no loop and no state, and the status said "not tried yet" and "No alerts." while its punches
 * waited (found by an adversarial trial).
 */
export function markCannotStart(state: DeliveryStateAccess, clock: Clock, words: string): void {
  const now = clock.now();
  state.update({
    failingSince: state.get().failingSince ?? now,
    lastError: `${CANNOT_START}: ${words}`,
    lastErrorAt: now,
    lastResult: 'nothing sent: the sink could not start',
  });
}

/**
 * The sender was built: a "cannot start" left by an earlier start or reload no longer holds. The
 * failing time goes with it, and so does the error: the status said the file was missing after it
 * was put in place. The loop sets both again if the server then fails.
 */
export function clearCannotStart(state: DeliveryStateAccess): void {
  if (!cannotStart(state.get())) return;
  state.update({ failingSince: null, lastError: null, lastErrorAt: null, lastResult: 'the sink started' });
}
