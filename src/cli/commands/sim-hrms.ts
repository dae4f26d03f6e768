import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadMappingFile, loadRosterFile, startHrmsSim } from '../../sim/hrms/index.js';
import type { HrmsFaults, HrmsSimOptions, RosterMode } from '../../sim/hrms/index.js';
import { defaultMapping } from '../../sim/hrms/mapping.js';
import { action, simCommand, withConsoleIo, type ConsoleIo } from '../common.js';
import { badOption as bad, collect, intText as int, rateText as rate, serveSim } from '../sim-options.js';

/** Raw option values as commander hands them over (all text, validated here). */
export interface SimHrmsCliOptions {
  host: string;
  port: string;
  token?: string[];
  tokenFile?: string;
  mapping?: string;
  roster?: string;
  rosterCheck?: string;
  mandatory?: string;
  identifyBy?: string;
  serviceWord?: string;
  basePath?: string;
  keyStyle?: string;
  dedupBy?: string;
  authStatus?: string;
  latency?: string;
  errorRate?: string;
  resetRate?: string;
  resetAfterProcessing?: boolean;
  nonJsonRate?: string;
  shortPayload?: string;
  tokenExpiresAt?: string;
  rateLimit?: string;
  maxBatch?: string;
  poison?: string[];
  seed?: string;
}

function oneOf<T extends string>(name: string, v: string | undefined, allowed: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (!allowed.includes(v as T)) throw bad(`${name}: must be one of ${allowed.join(', ')}`);
  return v as T;
}

function instant(name: string, v: string): number {
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) throw bad(`${name}: must be an ISO date-time such as 2030-01-01T00:00:00Z`);
  return ms;
}

/** A token file: one token a line, optionally followed by an ISO expiry; blank lines and # comments skipped. */
function readTokenFile(path: string): Array<{ token: string; expiresAt?: number }> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw bad(`--token-file: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const out: Array<{ token: string; expiresAt?: number }> = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const [token, expiry, extra] = line.split(/\s+/);
    // The message names the line, never its content: it holds a secret.
    if (!token || extra !== undefined) throw bad(`${path}:${i + 1}: expected "TOKEN [EXPIRES-ISO]"`);
    out.push(expiry === undefined ? { token } : { token, expiresAt: instant(`${path}:${i + 1}`, expiry) });
  });
  return out;
}

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Turns the command line into simulator options; throws ExitError(78) on a bad value. */
export function buildSimOptions(o: SimHrmsCliOptions, warn: (line: string) => void): HrmsSimOptions {
  const tokens = [...(o.token ?? []), ...(o.tokenFile ? readTokenFile(o.tokenFile) : [])];
  let mapping;
  try {
    mapping = o.mapping ? loadMappingFile(o.mapping) : defaultMapping();
  } catch (e) {
    throw bad(e instanceof Error ? e.message : String(e));
  }
  const faults: Partial<HrmsFaults> = {};
  const set = <K extends keyof HrmsFaults>(k: K, v: HrmsFaults[K] | undefined) => {
    if (v !== undefined) faults[k] = v;
  };
  set('latencyMs', int('--latency', o.latency, 0));
  set('errorRate', rate('--error-rate', o.errorRate));
  set('resetRate', rate('--reset-rate', o.resetRate));
  set('nonJsonRate', rate('--non-json-rate', o.nonJsonRate));
  set('shortPayload', int('--short-payload', o.shortPayload, 0));
  set('rateLimitPerSecond', int('--rate-limit', o.rateLimit, 1));
  set('maxBatch', int('--max-batch', o.maxBatch, 1));
  set('seed', int('--seed', o.seed, 0));
  if (o.resetAfterProcessing) faults.resetAfterProcessing = true;
  if (o.tokenExpiresAt !== undefined) faults.tokenExpiresAt = instant('--token-expires-at', o.tokenExpiresAt);
  const poison = (o.poison ?? []).flatMap((p) => list(p));
  if (poison.length) faults.poisonCodes = poison;

  const check = oneOf('--roster-check', o.rosterCheck, ['auto', 'on', 'off'] as const);
  const roster: RosterMode = check === 'on' ? 'employees' : (check ?? (o.roster ? 'employees' : 'auto'));
  let employees: Array<Record<string, unknown>> | undefined;
  let lines: number[] = [];
  let shortNotes: Array<string | undefined> = [];
  if (o.roster) {
    try {
      const rows = loadRosterFile(o.roster, mapping).filter((r) => {
        if (r.error) warn(`${o.roster}:${r.line}: skipped: ${r.error}`);
        return !r.error;
      });
      employees = rows.map((r) => r.record);
      lines = rows.map((r) => r.line);
      shortNotes = rows.map((r) => r.short);
    } catch (e) {
      throw bad(`--roster: cannot read ${o.roster}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
  }
  if (tokens.length === 0) warn('no --token or --token-file given: any bearer token is accepted');

  return {
    host: o.host,
    port: int('--port', o.port, 0, 65535),
    tokens: tokens.length ? tokens : undefined,
    mapping,
    mandatory: o.mandatory !== undefined ? list(o.mandatory) : undefined,
    identifyBy: oneOf('--identify-by', o.identifyBy, ['username', 'email', 'employeeId'] as const),
    serviceWord: o.serviceWord,
    basePath: o.basePath,
    keyStyle: oneOf('--key-style', o.keyStyle, ['capital', 'lower'] as const),
    dedupBy: oneOf('--dedup-by', o.dedupBy, ['code-time', 'devicelogId'] as const),
    authHttpStatus: int('--auth-status', o.authStatus, 400, 599),
    roster,
    employees,
    onInvalidEmployee: (i, message) => {
      const short = shortNotes[i];
      warn(
        `${o.roster}:${lines[i] ?? '?'}: skipped: ${message}${short ? ` (${short}: cut short, or a comma missing?)` : ''}`,
      );
    },
    faults,
  };
}

/** The command body, separate from signal handling so that tests can run it in-process. */
export async function runSimHrms(o: SimHrmsCliOptions, io: ConsoleIo): Promise<number> {
  const warn = (line: string) => io.err(`warning: ${line}\n`);
  const opts = buildSimOptions(o, warn);
  return serveSim(o, io, 'HRMS', (log) => startHrmsSim({ ...opts, log }));
}

export function registerSimHrms(program: Command): void {
  simCommand(program)
    .command('hrms')
    .description(
      'run an HRMS simulator (attendance push and user operations of the HRMS contract); needs no config file',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0: any free port)', '8080')
    .option('--token <token>', 'accepted bearer token (repeatable)', collect)
    .option('--token-file <file>', 'file with accepted tokens, one a line: TOKEN [EXPIRES-ISO]')
    .option(
      '--mapping <file>',
      'field mapping (YAML/JSON): payloadField: {field: "Master Field", type: string|email|date|integer|url|boolean|nullable-string}',
    )
    .option(
      '--roster <file>',
      'employees at start, CSV with payload field names as header (username,name,email,biometriccode,...)',
    )
    .option(
      '--roster-check <mode>',
      'refuse punches of unknown or disabled employees: auto (when any employee exists), on, off',
    )
    .option(
      '--mandatory <fields>',
      'comma-separated fields required on create (default Username,Employee Name,Official Email)',
    )
    .option('--identify-by <field>', 'username, email or employeeId', 'username')
    .option('--service-word <word>', 'path word in /api.php/system/<word>/updateUser', 'hrms')
    .option('--base-path <path>', 'path prefix before /api.php')
    .option('--key-style <style>', 'capital (Status/Payload) or lower (status/payload)', 'capital')
    .option(
      '--dedup-by <key>',
      'what makes a punch "already exists": code-time (same code and logDate) or devicelogId',
      'code-time',
    )
    .option('--auth-status <code>', 'HTTP status of a token refusal', '401')
    .option('--latency <ms>', 'delay before each answer')
    .option('--error-rate <r>', 'probability 0..1 of HTTP 503')
    .option('--reset-rate <r>', 'probability 0..1 of a connection reset')
    .option('--reset-after-processing', 'a reset happens after the request was processed')
    .option('--non-json-rate <r>', 'probability 0..1 of an HTML page with status 200')
    .option('--short-payload <n>', 'process and answer only the first N punches of a batch')
    .option('--token-expires-at <iso>', 'every token expires at this time')
    .option('--rate-limit <n>', 'requests per second before HTTP 429')
    .option('--max-batch <n>', 'largest batch before HTTP 413')
    .option(
      '--poison <code>',
      'a batch holding this biometric code is refused with HTTP 400 (repeatable, or comma-separated)',
      collect,
    )
    .option('--seed <n>', 'seed of the fault rates')
    .action(action((o: SimHrmsCliOptions) => withConsoleIo((io) => runSimHrms(o, io))));
}
