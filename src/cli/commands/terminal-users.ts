/**
 * `punchgate terminals sync-users | restore-user | copy-templates | backups` (issue 16): the roster
 * onto the terminals, removed users put back, fingerprints enrolled once used everywhere.
 */
import { requireSeedHrms } from '../../config/sinks.js';
import type { Command } from 'commander';
import { TokenSource } from '../../hrms/token.js';
import { HrmsUsers } from '../../hrms/users.js';
import type { UserCommandDeps } from '../../roster/command-deps.js';
import { runSyncUsers, type SyncCommandOptions } from '../../roster/sync-command.js';
import { runRestoreUser } from '../../roster/zk/restore-user.js';
import { runCopyTemplates } from '../../roster/zk/copy-templates.js';
import type { CopyOptions } from '../../roster/zk/copy-report.js';
import { listBackups } from '../../roster/backups.js';
import type { AppContext } from '../../context.js';
import type { Journal } from '../../journal/journal.js';
import { action, withJournal } from '../common.js';
import { interruptible } from '../interruptible.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

function depsOf(ctx: AppContext, journal: Journal): UserCommandDeps {
  return {
    config: ctx.config,
    journal,
    now: () => ctx.clock.now(),
    out: process.stdout,
    err: process.stderr,
    scrub: (s) => ctx.secrets.scrub(s),
    logger: ctx.logger,
    hrms: () =>
      new HrmsUsers({
        hrms: requireSeedHrms(ctx.config, '--from-hrms'),
        token: new TokenSource({
          tokenFile: requireSeedHrms(ctx.config, '--from-hrms').tokenFile,
          secrets: ctx.secrets,
        }),
        secrets: ctx.secrets,
        authPatterns: ctx.config.delivery.patterns.authFailure,
        logger: ctx.logger,
      }),
  };
}

export function registerTerminalUserCommands(terminals: Command): void {
  terminals
    .command('sync-users')
    .description(
      'put the roster onto the terminals: add new hires, update names and cards, remove leavers (exit 0 done, 65 a roster row was bad or removals were held back, 1 a terminal refused a change, 75 a terminal could not be reached)',
    )
    .option('--roster <file.csv>', 'the roster: code,name[,card][,active] with a header')
    .option('--from-hrms', 'the roster from the HRMS employee fetch (config terminalUsers.fields)')
    .option(
      '--terminal <name>',
      'only this terminal (repeatable); default every enabled ZK, push (adms), Hikvision and Dahua terminal',
      collect,
    )
    .option('--dry-run', 'print the plan per terminal and change nothing')
    .option('--remove-absent', 'also remove users the roster does not mention')
    .option('--include-admins [codes]', 'administrators may be removed too (all, or only these comma-separated codes)')
    .option(
      '--max-removals <n>',
      'the most users this run may remove from each terminal (default terminalUsers.maxRemovals, else a tenth of its users, at least 3); more and nobody is removed',
    )
    .option('--json', 'machine-readable output: every change with its result')
    .action(
      action((opts: SyncCommandOptions, cmd: Command) =>
        withJournal(cmd, async (ctx, journal) => {
          const deps = depsOf(ctx, journal);
          const hrms = opts.fromHrms ? deps.hrms!() : undefined;
          try {
            return await interruptible(deps.err, (stop) =>
              runSyncUsers(opts, { ...deps, hrms: hrms && (() => hrms), stop }),
            );
          } finally {
            await (hrms as HrmsUsers | undefined)?.close();
          }
        }),
      ),
    );

  terminals
    .command('restore-user')
    .description(
      'put a removed user back on a ZK terminal from its backup, with its fingerprints (exit 0 done, 1 no backup or refused, 75 unreachable)',
    )
    .argument('<terminal>', 'terminal name')
    .argument('<code>', "the user's code")
    .action(
      action((terminal: string, code: string, _opts: unknown, cmd: Command) =>
        withJournal(cmd, (ctx, journal) =>
          interruptible(process.stderr, (stop) => runRestoreUser(terminal, code, { ...depsOf(ctx, journal), stop })),
        ),
      ),
    );

  terminals
    .command('copy-templates')
    .description(
      'copy users and their fingerprints from one ZK terminal to others (exit 0 done, 1 refused, 65 unknown --code, 75 unreachable)',
    )
    .requiredOption('--from <name>', 'the terminal the fingerprints were enrolled on')
    .requiredOption('--to <name>', 'a terminal to copy to (repeatable)', collect)
    .option('--code <code>', 'only this user (repeatable); default every user with fingerprints', collect)
    .option('--dry-run', 'print what would be copied and change nothing')
    .option('--json', 'machine-readable output')
    .action(
      action((opts: CopyOptions, cmd: Command) =>
        withJournal(cmd, (ctx, journal) =>
          interruptible(process.stderr, (stop) => runCopyTemplates(opts, { ...depsOf(ctx, journal), stop })),
        ),
      ),
    );

  terminals
    .command('backups')
    .description('users removed from terminals whose backup is kept (never the templates themselves)')
    .argument('[terminal]', 'only this terminal')
    .option('--json', 'machine-readable output')
    .action(
      action((terminal: string | undefined, opts: { json?: boolean }, cmd: Command) =>
        withJournal(cmd, (ctx, journal) =>
          // `terminals` has a --json of its own: commander gives it to the parent.
          listBackups(terminal, Boolean(opts.json), { ...depsOf(ctx, journal) }),
        ),
      ),
    );
}
