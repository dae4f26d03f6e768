import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { startOdooSim, type OdooFaults, type OdooSimOptions, type SimEmployee } from '../../sim/odoo/index.js';
import { readCsvTable } from '../../util/csv.js';
import { action, simCommand, withConsoleIo, type ConsoleIo } from '../common.js';
import {
  badOption as bad,
  collect,
  intText as int,
  rateText as rate,
  serveUntilStopped,
  startSimOrExit,
  timedLog,
} from '../sim-options.js';

/** Raw option values as commander hands them over (all text, validated here). */
export interface SimOdooCliOptions {
  host: string;
  port: string;
  odooVersion: string;
  database: string;
  login: string;
  apiKey?: string[];
  apiKeyFile?: string;
  employees?: string;
  demoEmployees?: string;
  down?: boolean;
  denyWrites?: boolean;
  withoutAttendances?: boolean;
  latency?: string;
  errorRate?: string;
  serializationRate?: string;
  dropAfterWrite?: string;
  refuse: string[];
  seed?: string;
}

const EMPLOYEE_COLUMNS = ['name', 'barcode', 'pin', 'x_punch_code'] as const;

/** An employees CSV: header name,barcode,pin,x_punch_code (name required, the others optional). */
function readEmployees(path: string): Array<Partial<SimEmployee> & { name: string }> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw bad(`--employees: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const table = readCsvTable(text, { shortRows: true });
  if (table.headerError) throw bad(`${path}:${table.headerLine}: ${table.headerError}`);
  const unknown = table.header.filter((h) => !(EMPLOYEE_COLUMNS as readonly string[]).includes(h));
  if (!table.header.includes('name') || unknown.length)
    throw bad(
      `${path}:1: expected a header of ${EMPLOYEE_COLUMNS.join(',')} (name required), found ${table.header.join(',')}`,
    );
  return table.rows.map((r) => {
    if (r.error) throw bad(`${path}:${r.line}: ${r.error}`);
    const rec: Record<string, string | false> = {};
    table.header.forEach((h, i) => (rec[h] = r.cells[i]?.trim() || false));
    if (!rec.name) throw bad(`${path}:${r.line}: name is empty`);
    return rec as unknown as Partial<SimEmployee> & { name: string };
  });
}

/** An API key file: one key a line; blank lines and # comments skipped. The message never shows a key. */
function readKeys(path: string): string[] {
  try {
    return readFileSync(path, 'utf8')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
  } catch (e) {
    throw bad(`--api-key-file: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** Turns the command line into simulator options; throws ExitError(78) on a bad value. */
export function buildOdooSimOptions(o: SimOdooCliOptions): OdooSimOptions {
  const version = int('--odoo-version', o.odooVersion, 16, 99)!;
  const employees = o.employees ? readEmployees(o.employees) : [];
  const demo = int('--demo-employees', o.demoEmployees, 0, 100_000) ?? (o.employees ? 0 : 10);
  for (let i = 1; i <= demo; i++) {
    const code = String(1000 + i);
    employees.push({ name: `Employee ${code}`, barcode: code, pin: code, x_punch_code: code });
  }
  const faults: Partial<OdooFaults> = {};
  const set = <K extends keyof OdooFaults>(k: K, v: OdooFaults[K] | undefined) => {
    if (v !== undefined) faults[k] = v;
  };
  if (o.down) faults.down = true;
  if (o.denyWrites) faults.noWriteAccess = true;
  set('latencyMs', int('--latency', o.latency, 0));
  set('errorRate', rate('--error-rate', o.errorRate));
  set('serializationRate', rate('--serialization-rate', o.serializationRate));
  set('dropAfterWrite', int('--drop-after-write', o.dropAfterWrite, 0));
  set('seed', int('--seed', o.seed, 0));
  const refuse = o.refuse.flatMap((r) => r.split(',').map((s) => s.trim())).filter(Boolean);
  if (refuse.length) faults.refuseCodes = refuse;
  const keys = [...(o.apiKey ?? []), ...(o.apiKeyFile ? readKeys(o.apiKeyFile) : [])];
  return {
    host: o.host,
    port: int('--port', o.port, 0, 65535)!,
    version,
    database: o.database,
    login: o.login,
    ...(keys.length ? { apiKeys: keys } : {}),
    employees,
    faults,
    ...(o.withoutAttendances ? { withoutAttendances: true } : {}),
  };
}

export async function runSimOdoo(o: SimOdooCliOptions, io: ConsoleIo): Promise<number> {
  const opts = buildOdooSimOptions(o);
  const sim = await startSimOrExit(o.host, o.port, () => startOdooSim({ ...opts, log: timedLog(io) }));
  if (!opts.apiKeys) io.err('warning: no --api-key or --api-key-file given: the API key is "sim-odoo-key"\n');
  io.out(
    `Odoo ${opts.version} simulator listening on ${sim.url} (database ${opts.database}, ${sim.store.employees.length} employees)\n`,
  );
  return serveUntilStopped(io, sim, 'Odoo');
}

export function registerSimOdoo(program: Command): void {
  simCommand(program)
    .command('odoo')
    .description(
      'run an Odoo simulator (JSON-2 as Odoo 19, JSON-RPC as Odoo 16-18; hr.employee and hr.attendance); needs no config file',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0: any free port)', '8069')
    .option('--odoo-version <n>', 'major version reported: 19 and later speak JSON-2 too, 16-18 JSON-RPC only', '19')
    .option('--database <name>', 'database name', 'odoo')
    .option('--login <login>', "the API user's login (JSON-RPC authenticate)", 'punchgate')
    .option('--api-key <key>', 'accepted API key (repeatable; default "sim-odoo-key")', collect)
    .option('--api-key-file <file>', 'file with accepted API keys, one a line')
    .option('--employees <file>', 'employees CSV with a header name,barcode,pin,x_punch_code')
    .option(
      '--demo-employees <n>',
      'add N employees with codes 1001.. in barcode, pin and x_punch_code (default 10 without --employees)',
    )
    .option('--down', 'every API request answers 503 (Odoo down behind its proxy)')
    .option('--deny-writes', "the API user may not write attendances (Odoo's AccessError)")
    .option('--without-attendances', 'the Attendances app (hr_attendance) is not installed: no hr.attendance')
    .option('--latency <ms>', 'delay before each answer (slow)')
    .option('--error-rate <r>', 'probability 0..1 of an HTTP 502 page')
    .option('--serialization-rate <r>', 'probability 0..1 that a write fails as a concurrent update')
    .option('--drop-after-write <n>', 'the next N writes are made, then the connection drops unanswered')
    .option(
      '--refuse <code>',
      'attendances of this employee code are refused with a UserError (repeatable)',
      collect,
      [],
    )
    .option('--seed <n>', 'seed of the fault rates')
    .action(action((o: SimOdooCliOptions) => withConsoleIo((io) => runSimOdoo(o, io))));
}
