import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Journal } from '../../src/journal/journal.js';
import { DEFAULT_SIM_KEY, startOdooSim, type OdooSim } from '../../src/sim/odoo/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * `punchgate check` against a real Odoo simulator: the `sink odoo` line must say whether Odoo
 * answers and takes the key. Found by a new-user trial: an empty batch was answered without a
 * call, so a wrong key, login, database, port or employee field all passed.
 */
describe('punchgate check of an Odoo sink', () => {
  let tmp: ReturnType<typeof tempDir>;
  const sims: OdooSim[] = [];
  beforeEach(() => {
    tmp = tempDir('punchgate-odoo-check-');
    writeFileSync(tmp.path('odoo.key'), `${DEFAULT_SIM_KEY}\n`);
    writeFileSync(tmp.path('wrong.key'), 'not-the-key\n');
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
  });
  afterEach(async () => {
    for (const s of sims.splice(0)) await s.stop();
    tmp.cleanup();
  });

  const check = async (sink: Record<string, unknown>) => {
    const file = tmp.path('punchgate.yaml');
    writeFileSync(
      file,
      stringify({
        site: 'plant-a',
        journal: { path: 'journal.db' },
        status: { listen: false },
        sinks: [{ name: 'odoo', kind: 'odoo', database: 'odoo', apiKeyFile: 'odoo.key', timeoutMs: 5000, ...sink }],
        terminals: [],
      }),
    );
    const r = await runPunchgate(['--config', file, 'check', '--json']);
    const out = JSON.parse(r.stdout) as {
      checks: Array<{ name: string; status: string; detail: string; fix?: string }>;
    };
    const line = out.checks.find((c) => c.name === 'sink odoo');
    if (!line) throw new Error(`no sink odoo line: ${r.stdout}`);
    return { status: r.status, line };
  };

  for (const version of [17, 19]) {
    it(`Odoo ${version}: passes with the right key, fails a wrong key, database, port and employee field`, async () => {
      const sim = await startOdooSim({ version, port: 0, employees: [{ name: 'Ann Lee', barcode: '1001' }] });
      sims.push(sim);
      const base = { baseUrl: sim.url, login: 'punchgate' };

      const good = await check(base);
      expect(good.line.status, good.line.detail).toBe('pass');
      // What it tested, and no more: the right to write attendances shows at the first delivery.
      expect(good.line.detail).toContain('took the login and API key');
      // The time the probe took is said with it, not after "the first delivery" (a new-user trial).
      expect(good.line.detail).toMatch(
        /took the login and API key and read an employee's code field \(nothing recorded\) in \d+ ms; whether its user may write attendances shows at the first delivery$/,
      );
      expect(good.status).toBe(0);
      expect(sim.store.attendances).toHaveLength(0);

      const wrongKey = await check({ ...base, apiKeyFile: 'wrong.key' });
      expect(wrongKey.line.status).toBe('fail');
      expect(wrongKey.status).toBe(1);
      expect(wrongKey.line.detail).toContain('refused the credential');
      expect(JSON.stringify(wrongKey.line)).not.toContain(DEFAULT_SIM_KEY);

      const wrongField = await check({ ...base, employeeField: 'x_no_such_field' });
      expect(wrongField.line.status).toBe('fail');
      expect(wrongField.line.detail).toContain('x_no_such_field');
      // The fix names the settings an answer can prove wrong, not only the address (a new-user trial).
      expect(wrongField.line.fix).toContain('database, login and employeeField (the message says which)');

      if (version < 19) {
        const wrongDb = await check({ ...base, database: 'prod' });
        expect(wrongDb.line.status).toBe('fail');
        // Odoo 16-18 answers a database it lacks with PostgreSQL's error (authenticate opens it
        // first), not as a wrong key: the detail names it and the fix points at the database.
        expect(wrongDb.line.detail).toContain('Odoo has no database "prod"');
        expect(wrongDb.line.fix).toContain('database');
        const noLogin = await check({ baseUrl: sim.url });
        expect(noLogin.line.status).toBe('fail');
        expect(noLogin.line.detail).toContain('needs the API user');
        expect(noLogin.line.fix).toContain('sinks[odoo].login');
      }

      const url = new URL(sim.url);
      await sim.stop();
      sims.pop();
      const nobody = await check({ ...base, baseUrl: `http://127.0.0.1:${url.port}` });
      expect(nobody.line.status).toBe('fail');
      expect(nobody.line.detail).toContain('ECONNREFUSED');
    }, 60_000);
  }
});
