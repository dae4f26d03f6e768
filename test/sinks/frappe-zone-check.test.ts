import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Journal } from '../../src/journal/journal.js';
import { startFrappeSim, type FrappeSim } from '../../src/sim/frappe/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Frappe stores a check-in's time as sent, in the site's zone. A Frappe sink fed by terminals in
 * more than one zone, without the site's `timezone`, gives some check-ins off by the difference:
 * `punchgate check` warns and names the setting; with it set, the line passes.
 */
describe('punchgate check of a Frappe sink fed from several time zones', () => {
  const tmp = tempDir('punchgate-frappe-zone-');
  let sim: FrappeSim;
  beforeAll(async () => {
    sim = await startFrappeSim({ keys: [{ key: 'k1', secret: 'zzSecret9' }] });
    writeFileSync(tmp.path('key'), 'k1\n');
    writeFileSync(tmp.path('secret'), 'zzSecret9\n');
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
  });
  afterAll(async () => {
    await sim.stop();
    tmp.cleanup();
  });

  const check = async (sink: Record<string, unknown>) => {
    const file = tmp.path('punchgate.yaml');
    const frappe = { name: 'frappe-hr', kind: 'frappe', baseUrl: sim.url, apiKeyFile: 'key', apiSecretFile: 'secret' };
    writeFileSync(
      file,
      stringify({
        site: 'plant-a',
        journal: { path: 'journal.db' },
        status: { listen: false },
        sinks: [{ ...frappe, ...sink }],
        terminals: [
          { name: 'gate', kind: 'zk', host: '127.0.0.1', port: 9, timezone: 'Europe/Berlin' },
          { name: 'yard', kind: 'zk', host: '127.0.0.1', port: 9, timezone: 'Asia/Kolkata' },
        ],
      }),
    );
    const r = await runPunchgate(['--config', file, 'check', '--json']);
    const out = JSON.parse(r.stdout) as {
      checks: Array<{ name: string; status: string; detail: string; fix?: string }>;
    };
    const line = out.checks.find((c) => c.name === 'sink frappe-hr');
    if (!line) throw new Error(`no sink line: ${r.stdout}`);
    return line;
  };

  it("warns, naming each zone's terminals and the setting; passes once the site's zone is set", async () => {
    const mixed = await check({});
    expect(mixed.status, mixed.detail).toBe('warn');
    expect(mixed.detail).toMatch(
      /took the API key and secret \(frappe\.auth\.get_logged_user: nothing recorded\) and [^;]* in \d+ ms; whether its user may create Employee Checkins shows at the first delivery; but/,
    );
    expect(mixed.detail).toContain('2 time zones (Europe/Berlin: gate; Asia/Kolkata: yard)');
    expect(mixed.fix).toContain('set sinks[frappe-hr].timezone');
    expect(JSON.stringify(mixed)).not.toContain('zzSecret9');

    const set = await check({ timezone: 'Asia/Kolkata' });
    expect(set.status, set.detail).toBe('pass');
  }, 30_000);
});
