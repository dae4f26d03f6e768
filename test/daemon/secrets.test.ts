import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { stringify, parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { COMM_KEY, everythingWritten, spawnDaemon, startStack, TOKEN } from './stack.js';
import { waitFor } from '../helpers/wait.js';
import { expectNoSecret } from '../helpers/secret.js';

/**
 * A whole session with faults (a refused token, a wrong comm key, dropped replies, HRMS errors),
 * logged at debug level: neither the HRMS token nor a comm key may appear in any output, in the
 * status log, in the journal or in the one-shot commands' output.
 */
describe('secrets', () => {
  it('never appear in logs, status, journal or command output', async () => {
    // A dropped reply below times out in 1 s, so that the session goes on within the waits.
    const stack = await startStack({ terminals: 2, zk: { timeoutMs: 1000 } });
    try {
      const [good, bad] = stack.terminals as [(typeof stack.terminals)[0], (typeof stack.terminals)[0]];
      good.addPunch({ userId: '1001', logTime: '2026-11-22 08:00:00' });
      good.setFaults({ dropReplyTo: [50], dropReplyOnce: true });
      bad.addPunch({ userId: '1002', logTime: '2026-11-22 08:00:01' });
      const cfg = parse(readFileSync(stack.configPath, 'utf8'));
      cfg.terminals[1].commKey = 4242424; // wrong for the second terminal
      cfg.log = { level: 'debug' };
      writeFileSync(stack.configPath, stringify(cfg));
      // The HRMS first knows no valid token: a refused token, then fixed.
      stack.hrms.setFaults({ tokenExpiresAt: 0, errorRate: 0.3, seed: 3 });
      const d = spawnDaemon(stack.configPath);
      await waitFor(
        () => /refuse|token/i.test(d.output()) && /comm key/i.test(d.output()),
        15_000,
        'auth failure and comm key refusal logged',
      );
      stack.hrms.setFaults({ tokenExpiresAt: null });
      d.child.kill('SIGHUP'); // re-read the token now
      await waitFor(() => stack.hrms.attendance().length >= 1, 15_000, 'delivery after the token came back');
      const cli = (...args: string[]) => {
        const r = spawnSync(process.execPath, ['dist/punchgate.js', '--config', stack.configPath, ...args], {
          encoding: 'utf8',
          timeout: 20_000,
        });
        return r.stdout + r.stderr;
      };
      const outputs = [
        cli('status'),
        cli('status', '--json'),
        cli('terminals'),
        cli('punches', '--json'),
        cli('punches', 'export'),
        cli('check'),
        cli('poll'),
      ];
      d.child.kill('SIGTERM');
      await d.exited;
      const everything = everythingWritten(stack.tmp.dir, d, outputs);
      expect(everything.length).toBeGreaterThan(1000);
      expect(everything).not.toContain(TOKEN);
      expectNoSecret(everything, String(COMM_KEY));
      expectNoSecret(everything, '4242424');
    } finally {
      await stack.stop();
    }
  }, 60_000);
});
