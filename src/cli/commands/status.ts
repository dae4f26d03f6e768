import type { Command } from 'commander';
import { buildStatus, formatStatus } from '../../status/index.js';
import { action, loadContext, openJournal } from '../common.js';

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('show the queue, the terminals, the last delivery and active alerts')
    .option('--json', 'machine-readable output')
    .action(
      action((opts: { json?: boolean }, cmd: Command) => {
        const ctx = loadContext(cmd, { logToStderr: true });
        const journal = openJournal(ctx);
        try {
          const report = buildStatus(journal, ctx.config, ctx.clock.now());
          process.stdout.write(ctx.secrets.scrub(opts.json ? JSON.stringify(report, null, 2) + '\n' : formatStatus(report)));
        } finally {
          journal.close();
        }
      }),
    );
}
