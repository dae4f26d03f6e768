import { existsSync } from 'node:fs';
import { isUtcName, zoneName } from './box-zone.js';
import { firstFew } from './first-few.js';

/** What the warning looks at; the defaults read this machine. */
export interface ZoneFacts {
  env: NodeJS.ProcessEnv;
  exists: (path: string) => boolean;
  /** The box's offset from UTC now, in minutes (Date's, negated: UTC+1 is 60). */
  offsetMinutes: number;
  /** The zone /etc/localtime names, if any. */
  localtime: string | undefined;
}

const facts = (): ZoneFacts => ({
  env: process.env,
  exists: existsSync,
  offsetMinutes: -new Date().getTimezoneOffset(),
  localtime: zoneName({}),
});

/** Docker (/.dockerenv), Podman (/run/.containerenv), or a manager that sets `container=` (nspawn, LXC). */
export function inContainer(f: ZoneFacts = facts()): boolean {
  return f.exists('/.dockerenv') || f.exists('/run/.containerenv') || Boolean(f.env.container);
}

/**
 * A container's clock is UTC unless it was given a zone: no TZ, and no /etc/localtime naming
 * another zone. A box set to UTC on purpose (TZ=UTC, or outside a container) is left alone.
 */
export function containerInDefaultUtc(f: ZoneFacts = facts()): boolean {
  if (!inContainer(f) || f.env.TZ !== undefined || f.offsetMinutes !== 0) return false;
  return f.localtime === undefined || isUtcName(f.localtime);
}

/**
 * The warning for terminals without `timezone` on a container left in UTC: their punches would be
 * judged (clock skew, "in the future") and, for card readers, stamped against UTC, not the site's time.
 */
export function containerZoneWarning(
  terminals: readonly { name: string; timezone?: string | undefined; enabled?: boolean }[],
  f: ZoneFacts = facts(),
): { detail: string; fix: string } | undefined {
  const names = terminals.filter((t) => t.enabled !== false && !t.timezone).map((t) => t.name);
  if (names.length === 0 || !containerInDefaultUtc(f)) return undefined;
  const shown = firstFew(names, 3);
  const which = names.length === 1 ? `terminal ${shown} has` : `terminals ${shown} have`;
  return {
    detail: `${which} no timezone and this container runs in UTC, so ${names.length === 1 ? 'its clock is' : 'their clocks are'} read as UTC`,
    fix: 'start the container with -e TZ=<the site zone, e.g. Europe/Berlin>, or set timezone: on each terminal',
  };
}
