import { statusJsonPath } from '../status/daemon-probe.js';
import { writePrivateFile } from '../util/private-file.js';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { nearMiss } from '../config/near-miss.js';
import { FileLock } from '../journal/lock.js';
import { EXIT, ExitError } from '../util/exit-codes.js';

/** The HRMS the demo can deliver to: the seed contract's simulator, Frappe HR's or Odoo's. */
export const DEMO_HRMS = ['seed', 'frappe', 'odoo'] as const;
export type DemoHrms = (typeof DEMO_HRMS)[number];

/** The terminal kinds the demo config has a simulated terminal of. */
export const DEMO_TERMINAL_KINDS = ['zk', 'adms', 'biotime', 'dahua'] as const;

/** The Odoo database of the demo's simulated Odoo. */
export const DEMO_ODOO_DATABASE = 'demo';

/** The secrets the demo made up for its simulators (the simulators accept exactly these). */
export interface DemoSecrets {
  frappe?: { key: string; secret: string };
  odoo?: string;
  biotime?: string;
  dahua?: string;
  seedToken?: string;
}

export interface DemoRunConfig {
  /** The config the daemon runs: a real config file, in the demo's data folder. */
  path: string;
  secrets: DemoSecrets;
  /** The last demo's journal was removed: this run starts afresh. */
  freshJournal: boolean;
}

/**
 * The last demo's journal, removed when the demo wrote its run config beside it (so it is the
 * demo's own) and no daemon holds it: the simulators start empty each time, and a journal that
 * remembers the last run's servers (a BioTime table read up to id 40, another HRMS first) would
 * warn about them, which reads like a fault to someone trying the demo.
 */
function removeLastDemoJournal(dir: string, journal: string, statusPath: string | undefined): boolean {
  if (!existsSync(join(dir, 'demo-run.yaml')) || !existsSync(journal) || FileLock.isHeld(`${journal}.lock`))
    return false;
  for (const f of [journal, `${journal}-wal`, `${journal}-shm`]) rmSync(f, { force: true });
  // Its status log's record too: it says punchgate run kept that journal, and a journal gone that a
  // status log says was kept is refused (a lost journal or a disk not mounted: journal-place.ts).
  if (statusPath !== undefined) rmSync(statusJsonPath(statusPath), { force: true });
  return true;
}

interface DemoDoc {
  journal: { path: string };
  status: { path?: string };
  hrms?: { baseUrl: string; tokenFile: string };
  sinks?: unknown[];
  terminals: Array<{ name: string; kind: string; passwordFile?: string; direction?: string }>;
}

/** `zk,biotime` -> the kinds, or a usage error naming the kinds there are. */
export function parseDemoTerminals(list: string | undefined): string[] {
  if (list === undefined) return [...DEMO_TERMINAL_KINDS];
  const kinds = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = kinds.filter((k) => !(DEMO_TERMINAL_KINDS as readonly string[]).includes(k));
  if (kinds.length === 0 || bad.length > 0) {
    const meant = bad
      .map((b) => [b, nearMiss(b, DEMO_TERMINAL_KINDS)] as const)
      .filter((m): m is readonly [string, string] => m[1] !== undefined)
      .map(([b, k]) => `"${k}" for "${b}"`);
    throw new ExitError(
      `--terminals: expected a list of ${DEMO_TERMINAL_KINDS.join(', ')}, found "${list}"${meant.length ? ` (did you mean ${meant.join(', ')}?)` : ''}`,
      EXIT.CONFIG,
    );
  }
  return kinds;
}

export function parseDemoHrms(s: string): DemoHrms {
  if (!(DEMO_HRMS as readonly string[]).includes(s)) {
    const meant = nearMiss(s, DEMO_HRMS);
    throw new ExitError(
      `--hrms: expected one of ${DEMO_HRMS.join(', ')}, found "${s}"${meant ? ` (did you mean "${meant}"?)` : ''}`,
      EXIT.CONFIG,
    );
  }
  return s as DemoHrms;
}

/** A secret file as punchgate wants them: one line, readable by this user only. */
function writeSecret(dir: string, name: string, value: string): string {
  const path = join(dir, name);
  // Replaced whole with a 0600 file (writeFileSync's mode applies only to a file it creates).
  writePrivateFile(path, `${value}\n`);
  return path;
}

const made = () => randomBytes(12).toString('hex');

/** Why a folder could not be made, in words. */
function whyNoFolder(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EEXIST' || code === 'ENOTDIR') return 'a file that is not a folder is in the way';
  if (code === 'EROFS') return 'its file system is read-only';
  return code ?? (e instanceof Error ? e.message : String(e));
}

/**
 * The config the demo's daemon runs, written from the demo config (config/demo.yaml) as a site
 * admin would write theirs: the chosen HRMS as the `hrms:` block (seed) or a sink of kind frappe
 * or odoo at the same address, only the terminals of the chosen kinds, and every secret in a
 * file of its own (mode 0600) beside the journal. Paths are absolute, so the file can be read,
 * checked (`punchgate check --config`) and run from anywhere.
 */
export function writeDemoRunConfig(baseConfig: string, hrms: DemoHrms, kinds: readonly string[]): DemoRunConfig {
  const baseDir = dirname(resolve(baseConfig));
  const doc = parse(readFileSync(baseConfig, 'utf8')) as DemoDoc;
  const at = (p: string) => resolve(baseDir, p);
  const journalPath = doc.journal.path;
  doc.journal.path = at(journalPath);
  if (doc.status.path) doc.status.path = at(doc.status.path);
  const dir = dirname(doc.journal.path);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    // A copy (demo.md: to move the ports) keeps ../.demo/journal.db: the folder above the copy's,
    // which a user may not write (~/demo.yaml: /home/.demo). It ended with a bare EACCES, exit 1.
    throw new ExitError(
      `${baseConfig}: journal.path: the demo cannot make the folder ${dir} for its journal (${journalPath}, relative to the copy's folder ${baseDir}): ${whyNoFolder(e)}: set journal.path and status.path in ${baseConfig} to a folder you can write (journal.path: .demo/journal.db puts it beside the copy)`,
      EXIT.CONFIG,
    );
  }
  const freshJournal = removeLastDemoJournal(dir, doc.journal.path, doc.status.path);
  const secrets: DemoSecrets = {};

  if (!doc.hrms) throw new ExitError(`${baseConfig}: the demo config needs an hrms: block (its address)`, EXIT.CONFIG);
  const baseUrl = doc.hrms.baseUrl;
  if (hrms === 'seed') {
    // Copied into a 0600 file beside the run config, as the other sinks' secrets are: the
    // repository's copy is as git checks it out (0644), which check and run warn about.
    // A copy of the demo config (demo.md: to move its ports) often leaves demo-token behind: it
    // is a throwaway for the simulator, so one is made up, as the other sinks' secrets are.
    const tokenFile = at(doc.hrms.tokenFile);
    secrets.seedToken = existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : made();
    doc.hrms.tokenFile = writeSecret(dir, 'demo-token', secrets.seedToken);
  } else {
    delete doc.hrms;
    if (hrms === 'frappe') {
      secrets.frappe = { key: made(), secret: made() };
      doc.sinks = [
        {
          name: 'frappe',
          kind: 'frappe',
          baseUrl,
          apiKeyFile: writeSecret(dir, 'frappe-api-key', secrets.frappe.key),
          apiSecretFile: writeSecret(dir, 'frappe-api-secret', secrets.frappe.secret),
        },
      ];
    } else {
      secrets.odoo = made();
      doc.sinks = [
        {
          name: 'odoo',
          kind: 'odoo',
          baseUrl,
          database: DEMO_ODOO_DATABASE,
          apiKeyFile: writeSecret(dir, 'odoo-api-key', secrets.odoo),
        },
      ];
    }
  }

  doc.terminals = doc.terminals.filter((t) => kinds.includes(t.kind));
  // The simulated users press check-in and check-out keys at random: Odoo would refuse a check-out
  // with no open attendance. As on a site whose people press no key, Odoo pairs punches in turn.
  if (hrms === 'odoo') for (const t of doc.terminals) t.direction = 'alternate';
  for (const t of doc.terminals) {
    if (t.kind !== 'biotime' && t.kind !== 'dahua') continue;
    const password = made();
    secrets[t.kind] = password;
    t.passwordFile = writeSecret(dir, `${t.name}.pass`, password);
  }
  if (doc.terminals.length === 0)
    throw new ExitError(`${baseConfig}: the demo config has no terminal of ${kinds.join(', ')}`, EXIT.CONFIG);

  const path = join(dir, 'demo-run.yaml');
  writeFileSync(
    path,
    `# Written by punchgate demo (--hrms ${hrms}) from ${resolve(baseConfig)}: the config its daemon runs.\n` +
      (hrms === 'odoo'
        ? "# direction: alternate: Odoo pairs each person's punches in turn (docs/direction.md).\n"
        : '') +
      stringify(doc),
  );
  return { path, secrets, freshJournal };
}
