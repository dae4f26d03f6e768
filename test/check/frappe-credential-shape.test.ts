import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOtherSinks } from '../../src/check/sink-check.js';
import { loadConfig } from '../../src/config/load.js';
import { startFrappeSim } from '../../src/sim/frappe/index.js';
import type { FrappeSim } from '../../src/sim/frappe/types.js';
import { Secrets } from '../../src/util/secrets.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * An integrator who copies Frappe's `Authorization: token key:secret` (or the `key:secret` pair)
 * into the API key file is told which file holds what, before anything is sent, and no part of the
 * credential is shown (a new-user trial met only "Frappe refused the API key and secret").
 */
describe('check: a Frappe key file written in the wrong shape', () => {
  const KEY = 'a1b2c3d4e5f6a7b';
  const SECRET = 'f9e8d7c6b5a4f3e';
  const tmp = tempDir('punchgate-frappe-shape-');
  let sim: FrappeSim;

  beforeAll(async () => {
    sim = await startFrappeSim({ port: 0, keys: [{ key: KEY, secret: SECRET }] });
  });
  afterAll(async () => {
    await sim.stop();
    tmp.cleanup();
  });

  const check = async (keyText: string, secretText: string) => {
    writeFileSync(tmp.path('key'), keyText, { mode: 0o600 });
    writeFileSync(tmp.path('secret'), secretText, { mode: 0o600 });
    const file = tmp.path('punchgate.yaml');
    writeFileSync(
      file,
      stringify({
        site: 'plant-f',
        journal: { path: tmp.path('journal.db') },
        terminals: [],
        sinks: [
          {
            name: 'erp',
            kind: 'frappe',
            baseUrl: sim.url,
            apiKeyFile: tmp.path('key'),
            apiSecretFile: tmp.path('secret'),
            timeoutMs: 3000,
          },
        ],
      }),
    );
    const [r] = await Promise.all(
      checkOtherSinks(
        loadConfig(file, () => []),
        { env: {}, secrets: new Secrets() },
      ),
    );
    return r!;
  };
  const shown = (r: { detail: string; fix?: string }) => `${r.detail} ${r.fix ?? ''}`;

  it('"key:secret" in the key file: the colon is named, with where each half goes; nothing is sent', async () => {
    const before = sim.stats().requests;
    const r = await check(`${KEY}:${SECRET}\n`, `${SECRET}\n`);
    expect(r.status).toBe('fail');
    expect(r.detail).toContain(`sinks[erp].apiKeyFile (${tmp.path('key')}) holds a colon, as in "key:secret"`);
    expect(r.detail).toContain('put the part before the colon in apiKeyFile and the part after it in apiSecretFile');
    expect(shown(r)).not.toContain(KEY);
    expect(shown(r)).not.toContain(SECRET);
    expect(sim.stats().requests).toBe(before);
  });

  it('"token key:secret" in the key file: the file and the shape it needs are named', async () => {
    const r = await check(`token ${KEY}:${SECRET}\n`, `${SECRET}\n`);
    expect(r.status).toBe('fail');
    expect(r.detail).toContain(`sinks[erp].apiKeyFile (${tmp.path('key')}):`);
    expect(r.detail).toContain('not "token key:secret"');
    expect(shown(r)).not.toContain(KEY);
    expect(shown(r)).not.toContain(SECRET);
  });

  it('the key and the secret each alone in their file: taken', async () => {
    const r = await check(`${KEY}\n`, `${SECRET}\n`);
    expect(r.status).toBe('pass');
  });
});
