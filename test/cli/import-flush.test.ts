import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { tempDir } from '../helpers/tmp.js';

const TOKEN = 'import-flush-token';

describe('import -> flush against the HRMS simulator (child processes)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let sim: HrmsSim;
  afterEach(async () => {
    await sim.stop();
    tmp.cleanup();
  });

  async function setup() {
    tmp = tempDir();
    sim = await startHrmsSim({ tokens: [TOKEN] });
    writeFileSync(tmp.path('token'), TOKEN);
    writeFileSync(
      tmp.path('punchgate.yaml'),
      stringify({
        site: 'plant-a',
        journal: { path: 'journal.db' },
        hrms: { baseUrl: sim.url, tokenFile: 'token' },
        delivery: { batchSize: 50 },
        terminals: [{ name: 'gate-2', kind: 'zk', host: '127.0.0.1', port: 1 }],
      }),
    );
    // Only punchgate run makes a journal: it has run once on this box.
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
  }
  /** Runs the CLI as a child without blocking this process (the simulator answers from here). */
  const cli = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['dist/punchgate.js', '--config', tmp.path('punchgate.yaml'), ...args],
        { timeout: 30_000 },
        (err, stdout, stderr) => resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('delivers every imported punch exactly once with its code, time and devicelogId; a re-import adds nothing', async () => {
    await setup();
    const csv = ['biometriccode,logDate'];
    for (let i = 0; i < 120; i++)
      csv.push(
        `${1000 + (i % 17)},2026-11-20 ${String(6 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
      );
    writeFileSync(tmp.path('punches.csv'), csv.join('\n') + '\n');
    const attlog = Array.from(
      { length: 30 },
      (_, i) => `${String(2000 + i).padStart(9)}\t2026-11-21 08:${String(i).padStart(2, '0')}:00\t1\t0\t0\t0`,
    );
    writeFileSync(tmp.path('BJ2C_attlog.dat'), attlog.join('\r\n') + '\r\n');

    const imp = await cli('import', tmp.path('punches.csv'), '--terminal', 'gate-2', tmp.path('BJ2C_attlog.dat'));
    expect(imp.status, imp.stderr).toBe(0);
    expect(imp.stdout).toContain('punches.csv: 120 new, 0 duplicates, 0 bad');
    expect(imp.stdout).toContain('BJ2C_attlog.dat: 30 new, 0 duplicates, 0 bad');

    const flush = await cli('flush', '--max-wait', '20');
    expect(flush.status, flush.stdout + flush.stderr).toBe(0);
    const journal = JSON.parse(
      `[${(await cli('punches', '--limit', '1000', '--json')).stdout.trim().split('\n').join(',')}]`,
    ) as { biometricCode: string; logTime: string; devicelogId: string; state: string }[];
    expect(journal).toHaveLength(150);
    expect(journal.every((p) => p.state === 'delivered')).toBe(true);
    const arrived = sim
      .received()
      .map((p) => `${p.biometriccode}|${p.logDate}|${p.devicelogId}`)
      .sort();
    const expected = journal.map((p) => `${p.biometricCode}|${p.logTime}|${p.devicelogId}`).sort();
    expect(arrived).toEqual(expected);
    expect(new Set(journal.map((p) => p.devicelogId)).size).toBe(150);
    expect(journal.every((p) => /^plant-a-[0-9a-f]{20}$/.test(p.devicelogId))).toBe(true);

    const requests = sim.requests();
    const again = await cli('import', tmp.path('punches.csv'), '--terminal', 'gate-2', tmp.path('BJ2C_attlog.dat'));
    expect(again.stdout).toContain('punches.csv: 0 new, 120 duplicates, 0 bad');
    expect(again.stdout).toContain('BJ2C_attlog.dat: 0 new, 30 duplicates, 0 bad');
    expect((await cli('flush')).status).toBe(0);
    expect(sim.requests()).toBe(requests);
    expect(sim.received()).toHaveLength(150);
  });

  it('reports bad lines with their numbers, keeps the good ones, and exits 65', async () => {
    await setup();
    writeFileSync(
      tmp.path('mixed.csv'),
      'biometriccode,logDate\n1,2026-11-20 08:00:00\n,2026-11-20 08:01:00\n2,2026-13-01 08:00:00\n3,2026-11-20 08:02:00\n',
    );
    const r = await cli('import', tmp.path('mixed.csv'));
    expect(r.status).toBe(65);
    expect(r.stderr).toContain('mixed.csv:3: empty biometric code');
    expect(r.stderr).toContain('mixed.csv:4: impossible logDate "2026-13-01 08:00:00": there is no month 13');
    expect(r.stdout).toContain('mixed.csv: 2 new, 0 duplicates, 2 bad');
    expect((await cli('import', tmp.path('missing.csv'))).status).toBe(66);
    expect((await cli('import', '--terminal', 'nope', tmp.path('mixed.csv'))).status).toBe(78);
  });

  it('flush exits 75 while the HRMS refuses the token, and charges no attempt', async () => {
    await setup();
    writeFileSync(tmp.path('token'), 'wrong-token');
    writeFileSync(tmp.path('p.csv'), 'biometriccode,logDate\n1,2026-11-20 08:00:00\n');
    await cli('import', tmp.path('p.csv'));
    const r = await cli('flush', '--max-wait', '1');
    expect(r.status).toBe(75);
    expect(r.stdout + r.stderr).toMatch(/token/i);
    expect(r.stdout + r.stderr).not.toContain('wrong-token');
    const status = JSON.parse((await cli('status', '--json')).stdout);
    expect(status.delivery.auth).toBe('failed');
    expect(status.punches.pending).toBe(1);
    const [p] = (await cli('punches', '--json')).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(p.attempts).toBe(0);
  });
});
