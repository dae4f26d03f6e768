import type { SourceStateStore } from '../../journal/types.js';
import { printable } from '../../util/terminal-text.js';

/**
 * What a listening Hikvision terminal's endpoint keeps in the journal for the status and
 * `punchgate check`: when the terminal last posted, and the posts refused from strangers.
 */
export const LISTEN_KEY = 'listen';
export const LISTEN_REFUSED_KEY = 'listen-refused';
/** The device's MAC address as its last poll read it (deviceInfo): a post must carry the same. */
export const MAC_KEY = 'mac';

/** `44-19-B6-00-00-01`, `4419b6000001` and `44:19:b6:00:00:01` are one address. */
export const sameMac = (a: string, b: string) =>
  a.replace(/[^0-9a-f]/gi, '').toLowerCase() === b.replace(/[^0-9a-f]/gi, '').toLowerCase();

/** `44:19:b6:00:00:01`, `44-19-B6-00-00-01`, `4419b6000001`. */
const MAC_ADDRESS = /^[0-9a-f]{2}([:-]?[0-9a-f]{2}){5}$/i;

/**
 * A MAC address a post carried, as it is kept and shown (refusals, the status, `check`, the log):
 * itself when it is one, else a short escaped sample said to be none. The post's text is the
 * sender's: unchecked, a 200 kB `macAddress` with control characters went whole into the
 * journal, status.json (four times) and a line of `punchgate check`.
 */
export const macShown = (text: string) =>
  MAC_ADDRESS.test(text) ? text : `${printable(text, 32)} (not a MAC address)`;

/** Keeps the device's MAC address when it changed (one write per change, never throws). */
export function rememberMac(state: SourceStateStore, terminal: string, mac: string): void {
  if (!MAC_ADDRESS.test(mac)) return;
  try {
    const known = state.get(terminal, MAC_KEY);
    if (known === undefined || !sameMac(known, mac)) state.set({ terminal, key: MAC_KEY, value: mac });
  } catch {
    /* the journal is busy: the next poll writes it */
  }
}

export interface ListenContact {
  /** Epoch ms of the terminal's last post that was answered (punch journalled, or nothing to keep). */
  lastPostAt: number;
}

export interface ListenRefusals {
  /** The last address refused. */
  address: string;
  /** Posts refused since the daemon started (all addresses). */
  count: number;
  lastAt: number;
  /** Set when the last refused post came from the terminal's address with another device's MAC address. */
  mac?: string;
}

function parse<T>(raw: string | undefined, ok: (o: Record<string, unknown>) => boolean): T | undefined {
  if (!raw) return undefined;
  try {
    const o = JSON.parse(raw) as Record<string, unknown>;
    return o && typeof o === 'object' && ok(o) ? (o as T) : undefined;
  } catch {
    return undefined;
  }
}

export function readListenContact(state: Pick<SourceStateStore, 'get'>, terminal: string): ListenContact | undefined {
  return parse(state.get(terminal, LISTEN_KEY), (o) => typeof o.lastPostAt === 'number');
}

export function readListenRefusals(state: Pick<SourceStateStore, 'get'>, terminal: string): ListenRefusals | undefined {
  return parse(
    state.get(terminal, LISTEN_REFUSED_KEY),
    (o) => typeof o.address === 'string' && typeof o.count === 'number' && typeof o.lastAt === 'number',
  );
}
