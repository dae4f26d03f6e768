import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { runDemo } from '../../demo/demo.js';
import { DEMO_HRMS, DEMO_TERMINAL_KINDS, parseDemoHrms, parseDemoTerminals } from '../../demo/run-config.js';
import { packageRoot } from '../../util/package-paths.js';
import { action } from '../common.js';

/**
 * The shipped demo config keeps the demo's journal beside it (../.demo). In a checkout that is the
 * repository's .demo folder (`npm run demo`). An installed punchgate (the .deb, the tarball, a
 * global npm install) must not write into its program folder (not writable for a user, and no
 * place for data as root): there the demo runs on a copy in a fresh temporary folder, removed
 * when the demo ends.
 */
function shippedDemo(): { config: string; shown?: string; cleanup?: () => void } {
  const root = packageRoot();
  const config = join(root, 'config', 'demo.yaml');
  if (existsSync(join(root, 'src'))) return { config };
  const dir = mkdtempSync(join(tmpdir(), 'punchgate-demo-'));
  mkdirSync(join(dir, 'config'));
  for (const f of ['demo.yaml', 'demo-token']) copyFileSync(join(root, 'config', f), join(dir, 'config', f));
  process.stdout.write(`[demo    ] the demo's journal and status log are in ${dir} until it ends\n`);
  return {
    config: join(dir, 'config', 'demo.yaml'),
    // The copy is removed when the demo ends: a message says to copy the installed one.
    shown: config,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'rehearse on one machine: a simulated terminal, a simulated HRMS and the daemon, on loopback (Ctrl-C stops)',
    )
    .option('--demo-config <file>', 'demo config (default: the one punchgate ships)')
    .option('--punch-every <seconds>', 'a punch on the simulated terminal every N seconds', '3')
    .option('--hrms <kind>', `the HRMS to simulate and deliver to: ${DEMO_HRMS.join(', ')}`, 'seed')
    .option(
      '--terminals <kinds>',
      `the terminal kinds to simulate, comma-separated (default: all of ${DEMO_TERMINAL_KINDS.join(',')})`,
    )
    .action(
      action(async (opts: { demoConfig?: string; punchEvery: string; hrms: string; terminals?: string }) => {
        const hrms = parseDemoHrms(opts.hrms);
        const terminals = parseDemoTerminals(opts.terminals);
        const demo: { config: string; shown?: string; cleanup?: () => void } = opts.demoConfig
          ? { config: opts.demoConfig }
          : shippedDemo();
        try {
          return await runDemo({
            configPath: demo.config,
            configShown: demo.shown ?? demo.config,
            hrms,
            terminals,
            punchEverySeconds: Number(opts.punchEvery) || 3,
            out: process.stdout,
          });
        } finally {
          demo.cleanup?.();
        }
      }),
    );
}
