import type { Command } from 'commander';
import { buildStatus, formatStatus, probeDaemon, statusJson } from '../../status/index.js';
import { action, withJournal } from '../common.js';

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('show the queue, the terminals, the last delivery and active alerts')
    .option('--json', 'machine-readable output')
    .action(
      action((opts: { json?: boolean }, cmd: Command) =>
        withJournal(
          cmd,
          (ctx, journal, fallback) => {
            const now = ctx.clock.now();
            // Read-only: status never creates, upgrades or writes the journal; whether the daemon
            // runs (and what only it knows, its config among it) comes from its lock and its status file.
            const report = buildStatus(journal, ctx.config, now, {
              daemon: probeDaemon(ctx.config, now),
              ...(fallback ? { config: fallback } : {}),
            });
            process.stdout.write(ctx.secrets.scrub(opts.json ? statusJson(report) : formatStatus(report)));
          },
          { readonly: true },
        ),
      ),
    );
}
