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
  return name && !/^(Etc\/)?(UTC|UCT|Universal|Zulu|GMT)$/.test(name) ? `${name}, ${utc}` : utc;
}

function zoneName(env: NodeJS.ProcessEnv): string | undefined {
  const tz = env.TZ?.replace(/^:/, '');
  if (tz) return /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(tz) ? tz : undefined;
  try {
    return /zoneinfo\/(.+)$/.exec(readlinkSync('/etc/localtime'))?.[1];
  } catch {
    return undefined;
  }
}
