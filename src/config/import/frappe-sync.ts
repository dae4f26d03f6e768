import { stringify } from 'yaml';
import {
  dictGet,
  isDict,
  pyRepr,
  PySyntaxError,
  readPythonSettings,
  type PyDict,
  type PyValue,
} from './python-literals.js';

/**
 * The settings of Frappe's biometric-attendance-sync-tool (its local_config.py, made from
 * local_config.py.template in frappe/biometric-attendance-sync-tool; erpnext_sync.py reads them)
 * turned into a punchgate config with a Frappe sink. Pure: the caller reads the file, writes the
 * YAML and the secret files.
 */

export interface FrappeSyncImportOptions {
  /** The file's name, for messages. */
  file: string;
  /** punchgate's `site` (default: from the ERPNext host). */
  site?: string;
  journalPath?: string;
  /** Where the config says the API key and secret are (the caller writes them there). */
  apiKeyFile: string;
  apiSecretFile: string;
}

export interface NotMapped {
  line?: number;
  setting: string;
  why: string;
}

export interface FrappeSyncImport {
  config: Record<string, unknown>;
  yaml: string;
  /** The key and secret read (never printed: the caller writes them to files, 0600). */
  secrets: { apiKey?: string; apiSecret?: string };
  notMapped: NotMapped[];
}

/** A setting the config cannot be made without, or a file that is not Python: exit 65 with its line. */
export class FrappeSyncInputError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'FrappeSyncInputError';
  }
}

/** Terminal names: the config's rule (src/config/terminals.ts). */
const TERMINAL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** punch_direction -> a terminal's direction (erpnext_sync.py: AUTO reads the device's punch state). */
const DIRECTIONS: Record<string, string> = { AUTO: 'device', IN: 'in', OUT: 'out' };

/** Settings the tool has that punchgate does not need, and why (said once each). */
const NOT_NEEDED: Record<string, string> = {
  PULL_FREQUENCY:
    'punchgate reads each terminal every minute (terminals[].schedule, a cron expression) and delivers as soon as it has read',
  LOGS_DIRECTORY: 'punchgate keeps every punch in its journal (journal.path) and logs to the system journal',
  IMPORT_START_DATE:
    "punchgate reads each terminal's whole log once; punches Frappe already has come back as duplicates and count as delivered (to leave old punches out, clear them from the terminal first)",
  allowed_exceptions:
    'punchgate never halts on one punch: "No Employee found" and inactive employees are parked and retried slowly (replayable with punches retry), duplicates count as delivered',
};

export function convertFrappeSync(text: string, o: FrappeSyncImportOptions): FrappeSyncImport {
  let file;
  try {
    file = readPythonSettings(text);
  } catch (e) {
    if (e instanceof PySyntaxError) throw new FrappeSyncInputError(`not a Python settings file: ${e.message}`, e.line);
    throw e;
  }
  const notMapped: NotMapped[] = [];
  const values = new Map<string, { value: PyValue; line: number }>();
  for (const a of file.assignments) values.set(a.name, { value: a.value, line: a.line });
  for (const u of file.unreadable) {
    notMapped.push({
      line: u.line,
      setting: u.name ?? u.text,
      why: u.name
        ? 'not a plain value (an expression, a call or an import is not run): give its value in the config by hand'
        : 'not an assignment of a value: left out',
    });
  }
  const need = (name: string) => {
    const v = values.get(name);
    if (!v) {
      const u = file.unreadable.find((x) => x.name === name);
      throw new FrappeSyncInputError(
        u ? `${name}: expected a plain value, found an expression` : `${name}: expected, found nothing`,
        u?.line ?? 0,
      );
    }
    return v;
  };

  // ERPNext / Frappe HR
  const url = need('ERPNEXT_URL');
  if (typeof url.value !== 'string' || !URL.canParse(url.value) || !/^https?:$/.test(new URL(url.value).protocol))
    throw new FrappeSyncInputError(
      `ERPNEXT_URL: expected a URL such as 'https://erp.example.com', found ${pyRepr(url.value)}`,
      url.line,
    );
  const baseUrl = url.value.trim().replace(/\/+$/, '');
  const host = new URL(baseUrl).hostname;
  if (new URL(baseUrl).protocol === 'http:' && !/^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(host))
    notMapped.push({
      line: url.line,
      setting: 'ERPNEXT_URL',
      why: `${baseUrl} is http://: punchgate refuses to send the API key and secret in clear to another host; use the site's https:// address, or add allowInsecureHttp: true to the sink on a trusted network`,
    });
  const version = values.get('ERPNEXT_VERSION');
  let method: 'hrms' | 'erpnext' = 'hrms';
  if (!version)
    // Templates before 2022 had no ERPNEXT_VERSION (the tool then always called erpnext.hr...);
    // today's tool reads its absence as 14.
    notMapped.push({
      setting: 'ERPNEXT_VERSION',
      why: "missing: method hrms, as today's tool assumes (Frappe HR / ERPNext 14 and later); a site on ERPNext 13 or older needs method: erpnext",
    });
  else {
    const n = typeof version.value === 'number' ? version.value : Number(version.value);
    if (!Number.isFinite(n))
      throw new FrappeSyncInputError(
        `ERPNEXT_VERSION: expected a number such as 15, found ${pyRepr(version.value)}`,
        version.line,
      );
    // erpnext_sync.py: "hrms" if ERPNEXT_VERSION > 13 else "erpnext".
    method = n > 13 ? 'hrms' : 'erpnext';
  }
  const secrets: FrappeSyncImport['secrets'] = {};
  for (const [name, slot, file2] of [
    ['ERPNEXT_API_KEY', 'apiKey', o.apiKeyFile],
    ['ERPNEXT_API_SECRET', 'apiSecret', o.apiSecretFile],
  ] as const) {
    const v = values.get(name);
    if (v && typeof v.value === 'string' && v.value.trim() !== '') secrets[slot] = v.value.trim();
    else
      notMapped.push({
        ...(v ? { line: v.line } : {}),
        setting: name,
        why: `empty or not a string: put the API user's ${slot === 'apiKey' ? 'key' : 'secret'} in ${file2} (one line, mode 0600)`,
      });
  }

  // Devices -> terminals
  const devices = need('devices');
  if (!Array.isArray(devices.value))
    throw new FrappeSyncInputError(`devices: expected a list of dicts, found ${pyRepr(devices.value)}`, devices.line);
  const terminals: Array<Record<string, unknown>> = [];
  const nameOf = new Map<string, string>();
  devices.value.forEach((d, i) => {
    const where = `devices[${i}]`;
    if (!isDict(d)) throw new FrappeSyncInputError(`${where}: expected a dict, found ${pyRepr(d)}`, devices.line);
    const str = (key: string): { value: string; line: number } | undefined => {
      const e = dictGet(d, key);
      if (!e) return undefined;
      if (typeof e.value !== 'string' && typeof e.value !== 'number')
        throw new FrappeSyncInputError(`${where}.${key}: expected a string, found ${pyRepr(e.value)}`, e.line);
      return { value: String(e.value).trim(), line: e.line };
    };
    const id = str('device_id');
    const ip = str('ip');
    const line = d.entries[0]?.line ?? devices.line;
    if (!id || id.value === '') throw new FrappeSyncInputError(`${where}.device_id: expected, found nothing`, line);
    if (!ip || ip.value === '') throw new FrappeSyncInputError(`${where}.ip: expected, found nothing`, line);
    let name = id.value;
    if (!TERMINAL_NAME.test(name)) {
      name =
        name
          .replace(/[^A-Za-z0-9._-]+/g, '-')
          .replace(/^[^A-Za-z0-9]+/, '')
          .slice(0, 64) || `device-${i + 1}`;
      notMapped.push({
        line: id.line,
        setting: `${where}.device_id`,
        why: `'${id.value}' is not a punchgate terminal name (letters, digits, ".", "_", "-"): named "${name}"; Frappe's device_id becomes "${name}" for new check-ins`,
      });
    }
    if (terminals.some((t) => t.name === name))
      throw new FrappeSyncInputError(`${where}.device_id: "${id.value}" is given twice`, id.line);
    nameOf.set(id.value, name);
    const terminal: Record<string, unknown> = { name, kind: 'zk', host: ip.value };
    const dir = dictGet(d, 'punch_direction');
    if (!dir)
      notMapped.push({
        line,
        setting: `${where}.punch_direction`,
        why: 'missing (the Frappe tool stops on it): direction none, no log type sent',
      });
    if (!dir || dir.value === null) terminal.direction = 'none';
    else if (typeof dir.value === 'string' && DIRECTIONS[dir.value.toUpperCase()])
      terminal.direction = DIRECTIONS[dir.value.toUpperCase()];
    else
      throw new FrappeSyncInputError(
        `${where}.punch_direction: expected 'IN', 'OUT', 'AUTO' or None, found ${pyRepr(dir.value)}`,
        dir.line,
      );
    const clear = dictGet(d, 'clear_from_device_on_fetch');
    if (clear && clear.value === true)
      notMapped.push({
        line: clear.line,
        setting: `${where}.clear_from_device_on_fetch`,
        why: "not mapped: punchgate never clears a terminal's log when it reads it. The log on the terminal is the only copy until the punch is in the journal and in Frappe; clearing on fetch loses punches whenever the sync fails after the fetch (the tool's own warning). To keep the terminal's memory from filling up, set terminals[].clearAfterDays: punchgate then clears it once everything on it is delivered and that old",
      });
    for (const k of ['latitude', 'longitude']) {
      const g = dictGet(d, k);
      if (g && typeof g.value === 'number' && g.value !== 0)
        notMapped.push({
          line: g.line,
          setting: `${where}.${k}`,
          why: "not sent: punchgate sends no coordinates; with HR Settings' Allow Geolocation Tracking on, Frappe HR refuses check-ins without them (turn it off for terminal check-ins)",
        });
    }
    for (const e of d.entries) {
      if (
        typeof e.key === 'string' &&
        !['device_id', 'ip', 'punch_direction', 'clear_from_device_on_fetch', 'latitude', 'longitude'].includes(e.key)
      )
        notMapped.push({ line: e.line, setting: `${where}.${e.key}`, why: 'not a setting punchgate knows: left out' });
    }
    terminals.push(terminal);
  });

  // Shift types -> shiftSync
  const shiftSync: Array<{ shiftType: string; terminals: string[] }> = [];
  const mapping = values.get('shift_type_device_mapping');
  if (mapping) {
    if (!Array.isArray(mapping.value))
      throw new FrappeSyncInputError(
        `shift_type_device_mapping: expected a list of dicts, found ${pyRepr(mapping.value)}`,
        mapping.line,
      );
    mapping.value.forEach((m, i) => {
      const where = `shift_type_device_mapping[${i}]`;
      if (!isDict(m)) throw new FrappeSyncInputError(`${where}: expected a dict, found ${pyRepr(m)}`, mapping.line);
      const shifts = listOfStrings(m, 'shift_type_name', where);
      const devs = listOfStrings(m, 'related_device_id', where);
      const names: string[] = [];
      for (const dev of devs.values) {
        const t = nameOf.get(dev);
        if (t) names.push(t);
        else
          notMapped.push({
            line: devs.line,
            setting: `${where}.related_device_id`,
            why: `'${dev}' is not one of devices: left out of the shift sync (its shift types then wait for no punch of it)`,
          });
      }
      for (const s of shifts.values) {
        const have = shiftSync.find((x) => x.shiftType === s);
        if (have) have.terminals.push(...names.filter((n) => !have.terminals.includes(n)));
        else if (names.length) shiftSync.push({ shiftType: s, terminals: [...new Set(names)] });
      }
    });
  }

  for (const v of ['device_punch_values_IN', 'device_punch_values_OUT'] as const) {
    const e = values.get(v);
    if (e)
      notMapped.push({
        line: e.line,
        setting: v,
        why: `${pyRepr(e.value)}: not mapped; with direction: device punchgate reads the device's state itself (check-in, break-in, overtime-in as in; check-out, break-out, overtime-out as out; the tool's default takes states 0 and 4 as IN, 1 and 5 as OUT, the break states as none): set the terminal's map of states to change that`,
      });
  }
  const known = new Set([
    'ERPNEXT_URL',
    'ERPNEXT_VERSION',
    'ERPNEXT_API_KEY',
    'ERPNEXT_API_SECRET',
    'devices',
    'shift_type_device_mapping',
    'device_punch_values_IN',
    'device_punch_values_OUT',
  ]);
  for (const a of file.assignments) {
    if (known.has(a.name)) continue;
    notMapped.push({
      line: a.line,
      setting: a.name,
      why: NOT_NEEDED[a.name] ?? 'not a setting of the Frappe tool punchgate knows: left out',
    });
  }

  const sink: Record<string, unknown> = {
    name: 'frappe',
    kind: 'frappe',
    baseUrl,
    method,
    employeeFieldname: 'attendance_device_id',
    apiKeyFile: o.apiKeyFile,
    apiSecretFile: o.apiSecretFile,
  };
  if (shiftSync.length) sink.shiftSync = shiftSync;
  const config: Record<string, unknown> = {
    site: o.site ?? siteFrom(host),
    journal: { path: o.journalPath ?? '/var/lib/punchgate/journal.db' },
    sinks: [sink],
    terminals,
  };
  const header = [
    `# punchgate config made by "punchgate import-config frappe-sync" from ${o.file}.`,
    '# Check it with: punchgate check --config <this file>. The API key and secret are in the files named below.',
    '',
  ].join('\n');
  notMapped.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return { config, yaml: header + stringify(config, { lineWidth: 0 }), secrets, notMapped };
}

function listOfStrings(d: PyDict, key: string, where: string): { values: string[]; line: number } {
  const e = dictGet(d, key);
  if (!e) throw new FrappeSyncInputError(`${where}.${key}: expected, found nothing`, d.entries[0]?.line ?? 0);
  // erpnext_sync.py accepts a single string for shift_type_name "for backward compatibility".
  const list = typeof e.value === 'string' ? [e.value] : e.value;
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string' && typeof x !== 'number'))
    throw new FrappeSyncInputError(`${where}.${key}: expected a list of names, found ${pyRepr(e.value)}`, e.line);
  return { values: list.map((x) => String(x)), line: e.line };
}

/** punchgate's `site` from the ERPNext host: erp.example.com -> erp-example-com (1-32 letters, digits, -). */
function siteFrom(host: string): string {
  const s = host
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/, '');
  return /^[A-Za-z0-9]/.test(s) ? s : 'frappe-site';
}
