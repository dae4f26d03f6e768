import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { heldBehindRefusedAlert, refusalAlerts } from '../../src/status/refusals.js';
import { cliSandbox } from '../helpers/cli.js';

/** Every `punchgate ...` command quoted in an alert's fix, as the admin would type it. */
const commandsOf = (fixes: readonly string[]) =>
  fixes.flatMap((f) => [...f.matchAll(/`punchgate ([^`]+)`/g)].map((m) => m[1]!.split(' ')));

/**
 * Found by an integrator's rehearsal (helper C4): the status of an Odoo sink (second after the
 * seed HRMS) told the admin to run `punchgate punches --sink odoo --state rejected --history`,
 * which the CLI refuses (exit 78: `--history is not available with --sink`). Every command the
 * refusal alerts of a sink quote is run against a real journal with that sink: each one works.
 */
describe('the commands the refusal alerts of a sink advise', () => {
  let sandbox: ReturnType<typeof cliSandbox> | undefined;
  afterEach(() => sandbox?.tmp.cleanup());

  it('are accepted by the CLI, for a sink after the first and for the first', async () => {
    sandbox = cliSandbox({
      sinks: [{ name: 'odoo', kind: 'odoo', baseUrl: 'http://127.0.0.1:9', database: 'odoo', apiKeyFile: 'odoo.key' }],
    });
    writeFileSync(sandbox.tmp.path('odoo.key'), 'odoo-key-5c1e\n');
    // More causes than the alerts name one by one: the last line counts the rest.
    const rows = Array.from({ length: 8 }, (_, i) => ({
      message: `Rule ${i} broken`,
      code: `60${i}`,
      state: i === 0 ? ('dead' as const) : ('rejected' as const),
      count: 1,
    }));
    for (const sink of ['odoo', undefined]) {
      const fixes = [...refusalAlerts(rows, sink), ...heldBehindRefusedAlert(3, sink)].map((a) => a.fix);
      const commands = commandsOf(fixes);
      expect(commands.length).toBeGreaterThan(3);
      for (const args of commands) {
        const r = await sandbox.cli(...args);
        expect(r.status, `punchgate ${args.join(' ')}: ${r.stderr}`).toBe(0);
      }
    }
  }, 120_000);
});
