import { readlinkSync } from 'node:fs';

/**
 * The box's time zone in words, for labelling local times: "Europe/Berlin, UTC+01:00", or just
 * "UTC+01:00" when the zone's name is not known. Found from TZ or the /etc/localtime link and
 * Date's offset, without Intl (its locale data costs megabytes of resident memory).
 */
export function boxZoneLabel(now: number, env: NodeJS.ProcessEnv = process.env): string {
  const offset = -new Date(now).getTimezoneOffset();
  const abs = Math.abs(offset);
  const utc = `UTC${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  const name = zoneName(env);
  return name && !isUtcName(name) ? `${name}, ${utc}` : utc;
}

/** The box's zone name (TZ, else the /etc/localtime link), when it can be told. */
export function zoneName(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const tz = env.TZ?.replace(/^:/, '');
  if (tz) return /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(tz) ? tz : undefined;
  try {
    return /zoneinfo\/(.+)$/.exec(readlinkSync('/etc/localtime'))?.[1];
  } catch {
    return undefined;
  }
}

/** UTC by another name (`Etc/UTC`, `Zulu`, `GMT`...). */
export const isUtcName = (name: string) => /^(Etc\/)?(UTC|UCT|Universal|Zulu|GMT)$/.test(name);

let ianaZone: string | undefined;

/**
 * The box's IANA zone as this Node reads it (Intl), for times converted between zones: a terminal
 * without its own `timezone` keeps the box's. Read once, at the first need (Intl's locale data costs
 * memory a box whose terminals all name their zone need not pay).
 */
export function boxIanaZone(): string {
  return (ianaZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone);
}
