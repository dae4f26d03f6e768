import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { Config } from './schema.js';
import { terminalSchema } from './terminals.js';

/**
 * What `punchgate run` does with the last good copy of its config when the file does not load at
 * its start (issue 30): the copy is a fallback, not a time machine. What the broken file still
 * says clearly is not overridden by the older copy:
 * - the HRMS address: delivery is HELD while the file names another HRMS than the copy, or its
 *   address cannot be read (punches are journalled and wait; nothing goes to an address the admin
 *   may have just left);
 * - the terminals: only terminals both name, at the same address, are collected from; one the
 *   file no longer lists, lists at another address or disables, is not started; one only the file names
 *   cannot be started from a file that does not load. When the file's terminal list cannot be
 *   read at all, the copy's terminals are collected from (collecting only journals punches).
 * Each is said in the log, the status, the page and /metrics, with the fix: correct the file and
 * reload.
 */
export interface FallbackDecision {
  /** Why delivery is held (null: the file names the copy's HRMS). */
  deliveryHeld: string | null;
  /** Terminals of the copy that are not started, and why. */
  notStarted: { name: string; why: string }[];
  /** Terminals only the broken file names. */
  onlyInFile: string[];
  /** The file's terminal list could not be read: every terminal of the copy runs. */
  terminalsUnread: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Where a terminal is: the fields that say which device it is, whatever its kind (a ZK's host and
 * port, a Dahua's tls which picks its port, a Hikvision's url, a BioTime server's baseUrl and the
 * devices behind it, a push terminal's serial, a serial reader's path).
 */
const WHERE = ['kind', 'host', 'port', 'tls', 'url', 'baseUrl', 'serial', 'path', 'terminals'] as const;
/** Where a sink delivers: its address, and for Odoo the database at that address. */
const SINK_WHERE = ['baseUrl', 'database'] as const;

const shownValue = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * The file's entry for a terminal as punchgate reads it, defaults included, when the entry itself
 * is whole (the break is elsewhere in the file): a port the file no longer writes is the default
 * port, not the copy's. Otherwise the entry as written.
 */
function asRead(entry: Obj): Obj {
  const r = terminalSchema.safeParse(entry);
  return r.success ? (r.data as unknown as Obj) : entry;
}

/** What the broken file still says, read as tolerantly as YAML allows (undefined: cannot be read). */
export function whatTheFileSays(file: string): { hrmsUrl?: string; terminals?: Obj[]; sinks?: Obj[] } {
  let doc;
  try {
    doc = parseDocument(readFileSync(file, 'utf8'), { merge: true });
  } catch {
    return {};
  }
  const get = (path: string[]): unknown => {
    try {
      const v = doc.getIn(path, true) as { toJSON?: () => unknown } | undefined;
      return v && typeof v.toJSON === 'function' ? v.toJSON() : v;
    } catch {
      return undefined;
    }
  };
  const url = get(['hrms', 'baseUrl']);
  const terminals = get(['terminals']);
  const sinks = get(['sinks']);
  return {
    ...(Array.isArray(sinks) ? { sinks: sinks.filter(isObj) } : {}),
    ...(typeof url === 'string' && URL.canParse(url) ? { hrmsUrl: url } : {}),
    ...(Array.isArray(terminals) ? { terminals: terminals.filter(isObj) } : {}),
  };
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** The copy's config as it may run against the broken `file`, and what was held back. */
export function decideFallback(copy: Config, file: string): { config: Config; decision: FallbackDecision } {
  const says = whatTheFileSays(file);
  // Every sink of the copy (the hrms: block, and each of sinks: by name) against the file.
  const held: string[] = [];
  const copyUrl = copy.hrms?.baseUrl;
  if (copyUrl !== undefined) {
    if (says.hrmsUrl === undefined)
      held.push(
        `the HRMS address (hrms.baseUrl) in ${file} cannot be read, so it may differ from the copy's (${copyUrl})`,
      );
    else if (!sameUrl(says.hrmsUrl, copyUrl))
      held.push(`${file} names the HRMS ${says.hrmsUrl}, the last good copy ${copyUrl}`);
  }
  for (const s of copy.sinks) {
    const entry = says.sinks?.find((x) => x.name === s.name);
    const url = entry?.baseUrl;
    if (typeof url !== 'string' || !URL.canParse(url))
      held.push(
        `the address of sink ${s.name} in ${file} cannot be read, so it may differ from the copy's (${s.baseUrl})`,
      );
    else if (!sameUrl(url, s.baseUrl))
      held.push(`${file} names ${url} for sink ${s.name}, the last good copy ${s.baseUrl}`);
    else
      for (const k of SINK_WHERE.filter((k) => k !== 'baseUrl' && (s as unknown as Obj)[k] !== undefined)) {
        const mine = (s as unknown as Obj)[k];
        if (entry![k] === undefined)
          held.push(
            `the ${k} of sink ${s.name} in ${file} cannot be read, so it may differ from the copy's (${shownValue(mine)})`,
          );
        else if (shownValue(entry![k]) !== shownValue(mine))
          held.push(
            `${file} names the ${k} ${shownValue(entry![k])} for sink ${s.name}, the last good copy ${shownValue(mine)}`,
          );
      }
  }
  const deliveryHeld = held.length > 0 ? held.join('; ') : null;
  const notStarted: FallbackDecision['notStarted'] = [];
  let terminals = copy.terminals;
  const onlyInFile: string[] = [];
  if (says.terminals) {
    const inFile = new Map(says.terminals.filter((t) => typeof t.name === 'string').map((t) => [t.name as string, t]));
    terminals = copy.terminals.filter((t) => {
      const f = inFile.get(t.name);
      if (!f) {
        notStarted.push({ name: t.name, why: `${file} no longer lists it` });
        return false;
      }
      if (f.enabled === false) {
        notStarted.push({ name: t.name, why: `${file} disables it (enabled: false)` });
        return false;
      }
      const mine = t as unknown as Obj;
      const read = asRead(f);
      const moved = WHERE.find((k) => read[k] !== undefined && shownValue(read[k]) !== shownValue(mine[k]));
      if (moved) {
        notStarted.push({
          name: t.name,
          why: `${file} gives it another ${moved} (${shownValue(read[moved])}; the copy: ${mine[moved] === undefined ? 'none' : shownValue(mine[moved])})`,
        });
        return false;
      }
      return true;
    });
    for (const name of inFile.keys()) if (!copy.terminals.some((t) => t.name === name)) onlyInFile.push(name);
  }
  return {
    config: { ...copy, terminals },
    decision: { deliveryHeld, notStarted, onlyInFile, terminalsUnread: says.terminals === undefined },
  };
}
