import type { SourceStateStore } from '../../journal/types.js';

/**
 * The terminals behind a BioTime server as punchgate has seen them in its transactions: serial,
 * name and area as the server calls them, the newest punch read and how many. Kept in the
 * journal's source state (key `devices`) for the status, `punchgate terminals` and the page,
 * which list them under the server. At most MAX_DEVICES (a server sending rows with endless new
 * serials does not grow it without bound: the ones seen longest ago go).
 */
export interface SeenDevice {
  serial: string;
  alias: string;
  area: string;
  /** The newest punch_time read (the terminal's wall clock). */
  lastPunch: string;
  /** Its punches read and new to the journal so far (a window read again is not counted twice). */
  read: number;
  /** When punchgate last read a transaction of it (epoch ms). */
  seenAt: number;
}

const KEY = 'devices';
export const MAX_DEVICES = 500;

export function readDevices(state: Pick<SourceStateStore, 'get'>, terminal: string): SeenDevice[] {
  const raw = state.get(terminal, KEY);
  if (!raw) return [];
  try {
    const list = JSON.parse(raw) as unknown;
    if (!Array.isArray(list)) return [];
    return list.filter(
      (d): d is SeenDevice =>
        typeof d === 'object' &&
        d !== null &&
        typeof (d as SeenDevice).serial === 'string' &&
        typeof (d as SeenDevice).read === 'number',
    );
  } catch {
    return [];
  }
}

/** Merges what one poll saw into the kept list (one write). */
export function mergeDevices(
  state: SourceStateStore,
  terminal: string,
  seen: ReadonlyMap<string, Omit<SeenDevice, 'seenAt'>>,
  now: number,
): void {
  if (seen.size === 0) return;
  const all = new Map(readDevices(state, terminal).map((d) => [d.serial, d]));
  for (const [serial, d] of seen) {
    const was = all.get(serial);
    all.set(serial, {
      serial,
      alias: d.alias || was?.alias || '',
      area: d.area || was?.area || '',
      lastPunch: was && was.lastPunch > d.lastPunch ? was.lastPunch : d.lastPunch,
      read: (was?.read ?? 0) + d.read,
      seenAt: now,
    });
  }
  const list = [...all.values()].sort((a, b) => b.seenAt - a.seenAt).slice(0, MAX_DEVICES);
  list.sort((a, b) => a.serial.localeCompare(b.serial));
  state.set({ terminal, key: KEY, value: JSON.stringify(list) });
}
