import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  startFrappeSim,
  STRICT_LOG_TYPE,
  type FrappeFaults,
  type FrappeSimOptions,
  type FrappeVersion,
} from '../../sim/frappe/index.js';
import type { ApiKeyPair, SimEmployee } from '../../sim/frappe/index.js';
import { readCsvTable } from '../../util/csv.js';
import { action, simCommand, withConsoleIo, type ConsoleIo } from '../common.js';
import { badOption as bad, collect, intText as int, rateText as rate, serveSim } from '../sim-options.js';

/** Raw option values as commander hands them over (all text, checked here). */
export interface SimFrappeCliOptions {
  host: string;
  port: string;
  key?: string[];
  keyFile?: string;
  employees?: string;
  shiftType: string[];
  app?: string;
  frappeVersion?: string;
  language?: string;
  latency?: string;
  rateLimited?: string;
  lockTimeouts?: string;
  lockRate?: string;
  lockStatus?: string;
  errorRate?: string;
  refuse: string[];
  down?: boolean;
  forbidCheckins?: boolean;
  geolocationTracking?: boolean;
  seriesBehind?: boolean;
  seed?: string;
}

/** "key:secret"; the message names where, never the value (it holds a secret). */
function pair(v: string, where: string): ApiKeyPair {
  const at = v.indexOf(':');
  if (at <= 0 || at === v.length - 1) throw bad(`${where}: expected "API_KEY:API_SECRET"`);
  return { key: v.slice(0, at), secret: v.slice(at + 1) };
}

function readKeyFile(path: string): ApiKeyPair[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw bad(`--key-file: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const out: ApiKeyPair[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line && !line.startsWith('#')) out.push(pair(line, `${path}:${i + 1}`));
  });
  return out;
}

/**
 * Employees CSV: a header naming attendance_device_id (or another employee field: every column
 * not listed below is one), and optionally name, employee_name, status (Active/Inactive),
 * default_shift.
 */
function readEmployees(path: string, warn: (l: string) => void): Array<Partial<SimEmployee>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw bad(`--employees: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const table = readCsvTable(text, { shortRows: true });
  if (table.headerError) throw bad(`${path}:${table.headerLine}: ${table.headerError}`);
  const own = new Set(['name', 'employee_name', 'status', 'default_shift']);
  const out: Array<Partial<SimEmployee>> = [];
  for (const r of table.rows) {
    if (r.error) {
      warn(`${path}:${r.line}: skipped: ${r.error}`);
      continue;
    }
    const e: Partial<SimEmployee> & { fields: Record<string, string> } = { fields: {} };
    table.header.forEach((h, i) => {
      const v = (r.cells[i] ?? '').trim();
      if (v === '') return;
      if (h === 'status') {
        if (v !== 'Active' && v !== 'Inactive' && v !== 'Suspended' && v !== 'Left')
          warn(`${path}:${r.line}: status "${v}" read as Active`);
        else e.status = v;
      } else if (h === 'name') e.name = v;
      else if (h === 'employee_name') e.employee_name = v;
      else if (h === 'default_shift') e.default_shift = v;
      else if (!own.has(h)) e.fields[h] = v;
    });
    out.push(e);
  }
  return out;
}

export function buildFrappeSimOptions(o: SimFrappeCliOptions, warn: (line: string) => void): FrappeSimOptions {
  const keys = [
    ...(o.key ?? []).map((k, i) => pair(k, `--key #${i + 1}`)),
    ...(o.keyFile ? readKeyFile(o.keyFile) : []),
  ];
  if (keys.length === 0) throw bad('give the accepted API key and secret: --key KEY:SECRET or --key-file FILE');
  const faults: Partial<FrappeFaults> = {};
  const set = <K extends keyof FrappeFaults>(k: K, v: FrappeFaults[K] | undefined) => {
    if (v !== undefined) faults[k] = v;
  };
  set('latencyMs', int('--latency', o.latency, 0));
  set('rateLimited', int('--rate-limited', o.rateLimited, 0));
  set('lockTimeouts', int('--lock-timeouts', o.lockTimeouts, 0));
  set('lockRate', rate('--lock-rate', o.lockRate));
  set('lockStatus', int('--lock-status', o.lockStatus, 400, 599));
  set('errorRate', rate('--error-rate', o.errorRate));
  set('seed', int('--seed', o.seed, 0));
  if (o.down) faults.down = true;
  if (o.forbidCheckins) faults.noPermission = true;
  if (o.geolocationTracking) faults.geolocationTracking = true;
  if (o.seriesBehind) faults.seriesBehind = true;
  const refuse = o.refuse.flatMap((r) => r.split(',').map((s) => s.trim())).filter(Boolean);
  if (refuse.length) faults.refuseCodes = refuse;
  const app = o.app ?? 'both';
  if (app !== 'hrms' && app !== 'erpnext' && app !== 'both') throw bad('--app: must be hrms, erpnext or both');
  const version = int('--frappe-version', o.frappeVersion, 13, 16) ?? 15;
  const language = o.language ?? 'en';
  if (language !== 'en' && language !== 'de') throw bad('--language: must be en or de');
  return {
    version: version as FrappeVersion,
    language,
    host: o.host,
    port: int('--port', o.port, 0, 65535) ?? 0,
    keys,
    apps: app === 'both' ? ['hrms', 'erpnext'] : [app],
    employees: o.employees ? readEmployees(o.employees, warn) : [],
    // "Night:strict": a shift whose check-ins need a log type.
    shiftTypes: o.shiftType.map((s) => {
      const strict = /:strict$/.test(s);
      const name = strict ? s.slice(0, -':strict'.length) : s;
      return strict ? { name, determine_check_in_and_check_out: STRICT_LOG_TYPE } : { name };
    }),
    faults,
  };
}

/** The command body, apart from signal handling so that tests run it in-process. */
export async function runSimFrappe(o: SimFrappeCliOptions, io: ConsoleIo): Promise<number> {
  const opts = buildFrappeSimOptions(o, (line) => io.err(`warning: ${line}\n`));
  return serveSim(o, io, 'Frappe', (log) => startFrappeSim({ ...opts, log }));
}

export function registerSimFrappe(program: Command): void {
  simCommand(program)
    .command('frappe')
    .description(
      'run a Frappe HR / ERPNext simulator (Employee Checkin by add_log_based_on_employee_field, Shift Type last_sync_of_checkin); needs no config file',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0: any free port)', '8000')
    .option('--key <key:secret>', 'accepted API key and secret (repeatable)', collect)
    .option('--key-file <file>', 'file with accepted API_KEY:API_SECRET pairs, one a line')
    .option(
      '--employees <csv>',
      'employees at start: a CSV with attendance_device_id (or another field), employee_name, status, default_shift',
    )
    .option(
      '--shift-type <name>',
      'a Shift Type (repeatable); NAME:strict needs a log type on its check-ins',
      collect,
      [],
    )
    .option('--app <app>', 'method paths answered: hrms (v14+), erpnext (v13 and older) or both', 'both')
    .option('--frappe-version <n>', "the Frappe version answered like, 13 to 16 (the duplicate's desk link)", '15')
    .option('--language <lang>', "the site's language, en or de (the duplicate's words)", 'en')
    .option('--latency <ms>', 'delay before each answer')
    .option('--rate-limited <n>', "the next N requests are over the site's rate limit (429, Retry-After)")
    .option('--lock-timeouts <n>', 'the next N check-in calls meet a lock wait timeout')
    .option('--lock-rate <r>', 'probability 0..1 of a lock wait timeout on a check-in call')
    .option('--lock-status <code>', 'HTTP status of the lock wait timeout', '417')
    .option('--error-rate <r>', 'probability 0..1 of an HTTP 500 on a check-in call')
    .option(
      '--refuse <code>',
      'refuse check-ins of this employee field value (repeatable, or comma-separated)',
      collect,
      [],
    )
    .option('--down', 'answer every request 502 Bad Gateway (the site down behind nginx)')
    .option('--forbid-checkins', 'the API user may not create Employee Checkins (403 PermissionError)')
    .option(
      '--geolocation-tracking',
      'HR Settings → Allow Geolocation Tracking on: check-ins without latitude and longitude are refused',
    )
    .option(
      '--series-behind',
      "the Employee Checkin naming series is behind its documents: each new check-in meets the newest one's name (409 DuplicateEntryError)",
    )
    .option('--seed <n>', 'seed of the fault rates')
    .action(action((o: SimFrappeCliOptions) => withConsoleIo((io) => runSimFrappe(o, io))));
}
