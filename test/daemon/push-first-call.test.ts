import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/ports.js';
import type { StatusReport } from '../../src/status/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { spawnDaemon, startStack } from './stack.js';

/**
 * A new-user trial: the first status of a real punchgate run told the admin to check the power and
 * network of a push terminal that had not had the time to call. `punchgate status` knows the
 * daemon's start from its status file and says the terminal is waiting for its first call.
 */
describe('punchgate status right after punchgate run started, with a push terminal', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('says the push terminal is waiting for its first call, not to check its power', async () => {
    const admsPort = await freePort();
    const stack = await startStack({ terminals: 0 });
    cleanups.push(() => stack.stop());
    // Delay 60: its first interval (three Delay periods, 3 min) outlasts a slow box's start.
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, { adms: { listen: `127.0.0.1:${admsPort}`, delay: 60 } });
      c.terminals.push({ name: 'lobby', kind: 'adms', serial: 'FIRSTCALL01' });
    });
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    let report: StatusReport | undefined;
    await waitFor(
      async () => {
        const out = await runPunchgate(['--config', stack.configPath, 'status', '--json']);
        report = out.stdout.startsWith('{') ? (JSON.parse(out.stdout) as StatusReport) : undefined;
        // Its live facts (the ports it listens on among them) read from its status file.
        return report?.listeners !== undefined || d.child.exitCode !== null;
      },
      60_000,
      `the daemon's live facts in punchgate status\n${d.output().slice(-2000)}`,
    );
    expect(report!.runningSince).toBeDefined();
    const lobby = report!.terminals.find((t) => t.name === 'lobby')!;
    expect(lobby.problem!.cause).toMatch(/^waiting for its first call \(punchgate run started at /);
    expect(lobby.problem!.fix).toMatch(/^nothing to do yet: it should call by /);
    expect(report!.alerts.filter((a) => /lobby/.test(a))).toEqual([]);
  });
});
