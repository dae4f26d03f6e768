import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { runDemo } from '../../demo/demo.js';
import { action } from '../common.js';

/** config/demo.yaml in the installed package (dist/src/cli/commands -> package root). */
const DEMO_CONFIG = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'config', 'demo.yaml');

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('rehearse on one machine: a simulated terminal, a simulated HRMS and the daemon, on loopback (Ctrl-C stops)')
    .option('--demo-config <file>', 'demo config', DEMO_CONFIG)
    .option('--punch-every <seconds>', 'a punch on the simulated terminal every N seconds', '3')
    .action(
      action((opts: { demoConfig: string; punchEvery: string }) =>
        runDemo({ configPath: opts.demoConfig, punchEverySeconds: Number(opts.punchEvery) || 3, out: process.stdout }),
      ),
    );
}
