import type { Command } from 'commander';
import { buildStatus, formatStatus } from '../../status/index.js';
import { action, withJournal } from '../common.js';

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('show the queue, the terminals, the last delivery and active alerts')
    .option('--json', 'machine-readable output')
    .action(
      action((opts: { json?: boolean }, cmd: Command) =>
        withJournal(cmd, (ctx, journal) => {
          const report = buildStatus(journal, ctx.config, ctx.clock.now());
          process.stdout.write(
            ctx.secrets.scrub(opts.json ? JSON.stringify(report, null, 2) + '\n' : formatStatus(report)),
          );
        }),
      ),
    );
}
