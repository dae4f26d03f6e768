/**
 * What a push terminal says about itself: `INFO=` on getrequest
 * (`INFO=Ver 8.0.4.2,12,10,4120,192.168.1.201,10,7,...`: firmware, users, fingerprints,
 * attendance records, address, ...) and the key=value lines of an INFO command result or of a
 * `table=options` upload (`FWVersion=..`, `UserCount=..`, `TransactionCount=..`).
 */
export interface DeviceInfo {
  firmware?: string;
  users?: number;
  records?: number;
}

const count = (s: string | undefined) => (s !== undefined && /^\d{1,9}$/.test(s.trim()) ? Number(s.trim()) : undefined);
// eslint-disable-next-line no-control-regex -- stripping control characters is the point here
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const clean = (s: string | undefined) => s?.replace(CONTROL, '').trim().slice(0, 64) || undefined;

/** The `INFO=` query parameter of getrequest. */
export function parseInfoParam(info: string): DeviceInfo {
  const f = info.split(',');
  return { firmware: clean(f[0]), users: count(f[1]), records: count(f[3]) };
}

/** `Key=value` pairs separated by newlines, commas or tabs (a leading `~` is part of some keys). */
export function parseInfoPairs(text: string): DeviceInfo {
  const kv = new Map<string, string>();
  for (const part of text.split(/[\n,\t]/)) {
    const eq = part.indexOf('=');
    if (eq > 0) kv.set(part.slice(0, eq).trim().replace(/^~/, ''), part.slice(eq + 1));
  }
  return {
    firmware: clean(kv.get('FWVersion') ?? kv.get('FirmVer')),
    users: count(kv.get('UserCount')),
    records: count(kv.get('TransactionCount') ?? kv.get('AttLogCount')),
  };
}

/** Keys never kept from a terminal's INFO answer: they may carry a comm key or a password. */
const SECRET_KEY = /key|pass|pwd|secret|token/i;

/** The key=value lines of an INFO result worth keeping, secrets left out. */
export function keepableInfo(lines: readonly string[]): string {
  return lines
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => {
      const eq = l.indexOf('=');
      return eq > 0 && !SECRET_KEY.test(l.slice(0, eq));
    })
    .map((l) => clean(l.slice(0, l.indexOf('='))) + '=' + (clean(l.slice(l.indexOf('=') + 1)) ?? ''))
    .join('\n');
}
