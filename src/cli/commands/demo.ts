import { join } from 'node:path';
import type { Command } from 'commander';
import { runDemo } from '../../demo/demo.js';
import { packageRoot } from '../../util/package-paths.js';
import { action } from '../common.js';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'rehearse on one machine: a simulated terminal, a simulated HRMS and the daemon, on loopback (Ctrl-C stops)',
    )
    .option('--demo-config <file>', 'demo config', join(packageRoot(), 'config', 'demo.yaml'))
    .option('--punch-every <seconds>', 'a punch on the simulated terminal every N seconds', '3')
    .action(
      action((opts: { demoConfig: string; punchEvery: string }) =>
        runDemo({ configPath: opts.demoConfig, punchEverySeconds: Number(opts.punchEvery) || 3, out: process.stdout }),
      ),
    );
}
