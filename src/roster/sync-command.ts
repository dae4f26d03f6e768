/**
 * The body of `punchgate terminals sync-users`, apart from commander so tests can run it in-process.
 * Returns the exit code (see report.ts: 0, 65, 1, 75).
 */
import { EXIT, ExitError } from '../util/exit-codes.js';
import { journalBackups } from './backups.js';
import type { UserCommandDeps } from './command-deps.js';
import { fetchRoster, loadRosterFile } from './load-roster.js';
import { formatText, syncExitCode, toJson } from './report.js';
import { syncAll } from './sync-users.js';
import { selectTerminals, syncAdapterFor } from './terminals.js';
import { protectedCodes } from './types.js';
import { escapeControls, safeJson } from '../util/terminal-text.js';

export interface SyncCommandOptions {
  roster?: string;
  fromHrms?: boolean;
  terminal?: string[];
  dryRun?: boolean;
  removeAbsent?: boolean;
  /** true: every administrator may be removed; a comma-separated list: only those codes. */
  includeAdmins?: boolean | string;
  /** The most users this run may remove from each terminal (overrides terminalUsers.maxRemovals). */
  maxRemovals?: string;
  json?: boolean;
}

export async function runSyncUsers(opts: SyncCommandOptions, deps: UserCommandDeps): Promise<number> {
  if (Boolean(opts.roster) === Boolean(opts.fromHrms)) {
    throw new ExitError('sync-users needs either --roster FILE.csv or --from-hrms', EXIT.FAILURE);
  }
  const maxRemovals = maxRemovalsOption(opts.maxRemovals, deps.config.terminalUsers.maxRemovals);
  const terminals = selectTerminals(deps.config, opts.terminal);
  const source = opts.roster ?? 'the HRMS';
  let roster;
  if (opts.roster) roster = loadRosterFile(opts.roster);
  else {
    if (!deps.hrms) throw new ExitError('--from-hrms: no HRMS client', EXIT.CONFIG);
    roster = await fetchRoster(deps.hrms(), deps.config.terminalUsers);
  }
  // The HRMS's text (a username, a name) is escaped: it must not drive the admin's terminal.
  for (const p of roster.problems)
    deps.err.write(`punchgate: ${escapeControls(`${p.where}: ${p.message}`)} (row skipped)\n`);
  if (terminals.length === 0) {
    deps.err.write(
      'punchgate: no terminal that holds users is configured (kind: zk, adms, hikvision or dahua); nothing to do\n',
    );
  }

  const { sink, store } = journalBackups(deps.journal, deps.now);
  store.prune(deps.config.terminalUsers.backupRetentionDays);
  const dryRun = Boolean(opts.dryRun);
  const guard = protectedCodes(roster);
  const reports = await syncAll(
    terminals.map((t) => syncAdapterFor(t, deps)),
    roster.entries,
    guard,
    {
      dryRun,
      removeAbsent: Boolean(opts.removeAbsent),
      includeAdmins: adminsOption(opts.includeAdmins),
      maxRemovals,
      ...(deps.stop ? { stop: deps.stop } : {}),
    },
    sink,
  );
  const code = syncExitCode(roster, reports);
  if (opts.json) {
    deps.out.write(safeJson(toJson(roster, source, reports, dryRun, code, deps.scrub), 2) + '\n');
  } else {
    const bad = roster.problems.length ? `, ${roster.problems.length} bad (skipped)` : '';
    const skipped = roster.skipped ? `, ${roster.skipped} without a code (skipped)` : '';
    deps.out.write(`roster ${source}: ${roster.entries.length} people${bad}${skipped}\n`);
    deps.out.write(formatText(reports, dryRun, deps.scrub));
  }
  if (guard.why !== undefined && opts.removeAbsent) {
    deps.err.write(`punchgate: --remove-absent: nobody was removed as absent, because ${guard.why}\n`);
  }
  return code;
}

/** `--max-removals N` for this run, else the config's, else the default share of each terminal. */
function maxRemovalsOption(cli: string | undefined, configured: number | undefined): number | 'default' {
  if (cli === undefined) return configured ?? 'default';
  if (!/^\d+$/.test(cli.trim())) {
    throw new ExitError(`--max-removals: expected a whole number of users (0 or more), found "${cli}"`, EXIT.USAGE);
  }
  return Number(cli.trim());
}

/** `--include-admins` alone: every administrator; `--include-admins 1001,1002`: only those. */
function adminsOption(v: boolean | string | undefined): boolean | ReadonlySet<string> {
  if (typeof v !== 'string') return Boolean(v);
  return new Set(
    v
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean),
  );
}
