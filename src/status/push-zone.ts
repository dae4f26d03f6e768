import type { PushStore } from '../journal/push-store.js';
import { utcOffsetMinutes } from '../sources/adms/options.js';
import type { PushZoneStatus } from './types.js';

/**
 * A push terminal asked to read its options again (CHECK) after its UTC offset changed keeps
 * stamping punches in the old offset until it does: a refused CHECK (or one it never acted on)
 * was only a `failed` line in `terminals commands`. The status, the page and `check` say it from
 * these facts, read from the journal alike (zone-check.ts queues the CHECK).
 */

/** A CHECK without the new offset told this long after it was queued: the terminal did not act on it. */
export const ZONE_CHECK_GRACE_MS = 3_600_000;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * The offset a push terminal was told and today's, with the CHECK queued for the new one; null
 * when the terminal was never told (Security PUSH, not seen since) or told today's offset.
 */
export function pushZoneOf(
  store: Pick<PushStore, 'zone' | 'latestCommand'>,
  cfg: { name: string; serial: string; timezone?: string | undefined },
  now: number,
): PushZoneStatus | null {
  let zone;
  try {
    zone = store.zone(cfg.name, cfg.serial);
  } catch (e) {
    // A journal from before migration 22 (read by check while an older daemon runs) told no zone.
    if (/no such table/i.test(e instanceof Error ? e.message : String(e))) return null;
    throw e;
  }
  if (!zone) return null;
  const today = utcOffsetMinutes(now, cfg.timezone);
  if (zone.told === today) return null;
  // The CHECK queued for it is the newest (one is never queued twice while open).
  const check = zone.askedAt === null ? undefined : store.latestCommand(cfg.name, 'CHECK');
  return {
    told: zone.told,
    toldAt: iso(zone.toldAt)!,
    now: today,
    askedAt: iso(zone.askedAt),
    check: check?.state ?? null,
    returnCode: check?.returnCode ?? null,
    doneAt: iso(check?.doneAt ?? null),
  };
}

/** The zone is said stale once the terminal refused CHECK, or left it an hour without reading its options. */
export function zoneIsStale(z: PushZoneStatus, now: number): boolean {
  if (z.askedAt === null) return false;
  return z.check === 'failed' || now - Date.parse(z.askedAt) >= ZONE_CHECK_GRACE_MS;
}
