import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startOdooSim } from '../../src/sim/odoo/index.js';
import { spawnDaemon, startStack } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

const KEY = 'odoo-key-held-4b7e';

interface Row {
  biometricCode: string;
  logTime: string;
  state: string;
  lastMessage: string | null;
}

/**
 * Found by an integrator's rehearsal (helper C4): 673 punches waited behind refused ones for an
 * Odoo sink, and `punchgate punches --sink odoo --state pending` showed 495 of them with no answer
 * at all (0 attempts, nothing said), where docs/sinks-odoo.md promises `held: an earlier punch of
 * this employee ... was refused by Odoo`: only punches that had been in a batch with the refused one
 * carried it; those journalled later were never claimed, so never told. Both lists (the first sink,
 * the journal's own queue, and a second one) now say why each such punch waits.
 */
describe('punches held behind a refused Odoo punch', () => {
  it('are listed with the reason they wait, for the first sink and another', async () => {
    const stack = await startStack({ terminals: 1, delivery: { batchSize: 10 } });
    const odoo = await startOdooSim({ apiKeys: [KEY], employees: [{ name: 'Ann Lee', barcode: '3001' }] });
    writeFileSync(stack.tmp.path('odoo.key'), `${KEY}\n`);
    const sink = (name: string) => ({
      name,
      kind: 'odoo',
      baseUrl: odoo.url,
      database: 'odoo',
      apiKeyFile: stack.tmp.path('odoo.key'),
      timeoutMs: 20_000,
    });
    stack.writeConfig(undefined, (c) => {
      delete (c as { hrms?: unknown }).hrms;
      Object.assign(c, { sinks: [sink('odoo-a'), sink('odoo-b')] });
      // An exit: a check-out with no open attendance, which Odoo refuses.
      Object.assign(c.terminals[0]!, { direction: 'out' });
    });
    const [t1] = stack.terminals as [(typeof stack.terminals)[0]];
    const cli = async (...args: string[]) => {
      const r = await runPunchgate(['--config', stack.configPath, 'punches', ...args, '--json']);
      expect(r.status, r.stderr).toBe(0);
      return r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Row);
    };
    const d = spawnDaemon(stack.configPath);
    try {
      await waitFor(() => d.output().includes('punchgate running'), 30_000, 'the daemon up');
      t1.addPunch({ userId: '3001', logTime: '2026-11-25 08:00:00', state: 1 });
      await waitFor(
        async () =>
          (await cli('--state', 'rejected')).length === 1 &&
          (await cli('--sink', 'odoo-b', '--state', 'rejected')).length === 1,
        30_000,
        'the first check-out refused by both sinks',
      );
      // Later punches of the same person, journalled after the refusal: held, never sent.
      t1.addPunch({ userId: '3001', logTime: '2026-11-25 12:00:00', state: 1 });
      t1.addPunch({ userId: '3001', logTime: '2026-11-25 17:00:00', state: 1 });
      const status = stack.tmp.path('status.txt');
      await waitFor(
        () => {
          try {
            const text = readFileSync(status, 'utf8');
            return text.includes('! 2 punches wait behind') && text.includes('! sink odoo-b: 2 punches wait behind');
          } catch {
            return false;
          }
        },
        30_000,
        'both sinks holding the two later punches',
      );
      for (const rows of [await cli('--state', 'pending'), await cli('--sink', 'odoo-b', '--state', 'pending')]) {
        expect(rows.map((r) => r.logTime).sort()).toEqual(['2026-11-25 12:00:00', '2026-11-25 17:00:00']);
        for (const r of rows)
          expect(r.lastMessage, r.logTime).toMatch(
            /^held: an earlier punch of this employee at 2026-11-25 08:00:00 was refused by Odoo; this one waits until it is in/,
          );
      }
      // The table says it too.
      const table = await runPunchgate(['--config', stack.configPath, 'punches', '--sink', 'odoo-b']);
      expect(table.stdout).toMatch(/2026-11-25 17:00:00 +pending +0 +held: an earlier punch/);

      d.child.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await odoo.stop();
      await stack.stop();
    }
  }, 90_000);
});
