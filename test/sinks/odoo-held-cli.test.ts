import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { DEFAULT_SIM_KEY, startOdooSim, type OdooSim } from '../../src/sim/odoo/index.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * The built CLI says why an Odoo sink's punches stay pending behind a refused punch of the same
 * person: `flush` (exit 75) and `status` name the count and the fix; the other person goes in.
 */
describe('Odoo: punches held behind a refused one, said by flush and status', () => {
  let sim: OdooSim | undefined;
  const tmp = tempDir();
  afterEach(async () => {
    await sim?.stop();
    tmp.cleanup();
  });

  it('flush exits 75 naming the held punch and its fix; status says the same', async () => {
    sim = await startOdooSim({
      employees: [
        { name: 'Ann Lee', barcode: '1001' },
        { name: 'Bob Roy', barcode: '1002' },
      ],
      faults: { refuseCodes: ['1001'] },
    });
    writeFileSync(tmp.path('odoo-key'), `${DEFAULT_SIM_KEY}\n`);
    writeFileSync(
      tmp.path('p.yaml'),
      `site: plant-h
journal:
  path: j.db
sinks:
  - name: odoo
    kind: odoo
    baseUrl: ${sim.url}
    database: odoo
    api: json2
    apiKeyFile: odoo-key
terminals:
  - name: gate
    kind: zk
    host: 127.0.0.1
    timezone: UTC
`,
    );
    const j = Journal.open({ path: tmp.path('j.db'), site: 'plant-h', mode: 'owner' });
    j.useSinks({ defaultSink: 'odoo', others: [] });
    j.ingest([
      { terminal: 'gate', biometricCode: '1001', logTime: '2026-11-23 08:00:00' },
      { terminal: 'gate', biometricCode: '1002', logTime: '2026-11-23 08:30:00' },
      { terminal: 'gate', biometricCode: '1001', logTime: '2026-11-23 17:00:00' },
    ]);
    j.close();
    // Not spawnSync: the simulator answers from this process.
    const run = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['dist/punchgate.js', '--config', tmp.path('p.yaml'), ...args]);
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    const flush = await run('flush');
    expect(flush.status).toBe(75);
    expect(flush.stdout).toMatch(/left: 1 pending, 1 rejected/);
    expect(flush.stderr).toMatch(/1 punch waits behind a refused punch of the same person .*punchgate punches retry/);
    expect(sim.store.attendances).toHaveLength(1); // Bob's
    const status = await run('status');
    expect(status.stdout).toMatch(/1 punch waits behind a refused punch of the same person/);
  });
});
