import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOtherSinks } from '../../src/check/sink-check.js';
import { loadConfig } from '../../src/config/load.js';
import { startOdooSim, type OdooSim } from '../../src/sim/odoo/index.js';
import { Secrets } from '../../src/util/secrets.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * `punchgate check` of an Odoo sink whose server is down (503) or not there: the words say so,
 * and do not send the admin to the sink's settings (a new-user trial was told to check "baseUrl,
 * database, login and employeeField" for an Odoo that was down).
 */
describe('check of a sink whose server is down', () => {
  const tmp = tempDir('punchgate-check-down-');
  let sim: OdooSim;
  const odoo = (baseUrl: string) => {
    const file = tmp.path(`c-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(
      file,
      stringify({
        site: 'plant-d',
        journal: { path: tmp.path('journal.db') },
        hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: tmp.path('key') },
        sinks: [{ name: 'odoo', kind: 'odoo', baseUrl, database: 'odoo', api: 'json2', apiKeyFile: tmp.path('key') }],
        terminals: [],
      }),
    );
    return loadConfig(file, () => []);
  };
  beforeAll(async () => {
    writeFileSync(tmp.path('key'), 'sim-odoo-key\n');
    sim = await startOdooSim({ faults: { down: true } });
  });
  afterAll(async () => {
    await sim.stop();
    tmp.cleanup();
  });

  it('503: up but failing, try later; nothing listening: is it up, the way to it', async () => {
    const [down] = await Promise.all(checkOtherSinks(odoo(sim.url), { env: {}, secrets: new Secrets() }));
    expect(down).toMatchObject({ status: 'fail' });
    expect(down!.detail).toMatch(/is up but failing \(.*503/);
    expect(down!.fix).toMatch(/down, restarting or overloaded/);
    expect(down!.fix).not.toMatch(/database|employeeField/);
    const [gone] = await Promise.all(checkOtherSinks(odoo('http://127.0.0.1:9'), { env: {}, secrets: new Secrets() }));
    expect(gone!.detail).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:9/);
    expect(gone!.fix).toMatch(/is the server up/);
    expect(gone!.fix).not.toMatch(/database|employeeField/);
  });
});
