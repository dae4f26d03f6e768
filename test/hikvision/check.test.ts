import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/check/runner.js';
import type { HikvisionSim } from '../../src/sim/hikvision/index.js';
import { tempDir } from '../helpers/tmp.js';
import { PASSWORD, startSim } from './helpers.js';

let sim: HikvisionSim | undefined;
const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
  for (const d of dirs.splice(0)) d.cleanup();
});

async function check(url: string, env: NodeJS.ProcessEnv, extra: Record<string, unknown> = {}) {
  const tmp = tempDir();
  dirs.push(tmp);
  writeFileSync(
    tmp.path('pg.yaml'),
    JSON.stringify({
      site: 's',
      journal: { path: tmp.path('j.db') },
      hrms: { baseUrl: 'http://127.0.0.1:9' },
      terminals: [{ name: 'reception', kind: 'hikvision', url, timeoutMs: 5000, timezone: 'Asia/Kolkata', ...extra }],
    }),
  );
  const report = await runChecks({ configPath: tmp.path('pg.yaml'), env });
  return { report, t: report.checks.find((c) => c.name === 'terminal reception')! };
}

const env = { PUNCHGATE_TERMINAL_RECEPTION_PASSWORD: PASSWORD };

describe('check for Hikvision terminals', () => {
  it('tells firmware that ignores or refuses serial filters from firmware that has them', async () => {
    sim = await startSim(10);
    expect((await check(sim.url, env)).t.detail).toContain('event search by serial number');
    sim.setFirmware({ serialFilters: 'ignore' });
    expect((await check(sim.url, env)).t.detail).toContain('event search by time window');
    sim.setFirmware({ serialFilters: 'refuse' });
    expect((await check(sim.url, env)).t.detail).toContain('event search by time window');
  });

  it('warns about a clock off by whole hours as a time zone mismatch', async () => {
    sim = await startSim(0, { clockOffsetSeconds: 3600 });
    const { t } = await check(sim.url, env);
    expect(t.status).toBe('warn');
    expect(t.detail).toMatch(/clock 1 h ahead/);
    expect(t.fix).toMatch(/timezone/);
  });

  it('names a missing password, a wrong one, and an address where nothing answers; never prints the password', async () => {
    sim = await startSim(0);
    const none = await check(sim.url, {});
    expect(none.t).toMatchObject({ status: 'fail' });
    expect(none.t.detail).toMatch(
      /no password for reception: set passwordFile, or the environment variable PUNCHGATE_TERMINAL_RECEPTION_PASSWORD/,
    );
    const wrong = await check(sim.url, { PUNCHGATE_TERMINAL_RECEPTION_PASSWORD: 'wrong-secret-1' });
    expect(wrong.t.detail).toMatch(/refuses the password of "admin" \(4 tries left/);
    expect(JSON.stringify(wrong.report)).not.toContain('wrong-secret-1');
    const url = sim.url;
    await sim.stop();
    sim = undefined;
    const gone = await check(url, env);
    expect(gone.t.detail).toMatch(/refused the connection/);
    expect(gone.t.fix).toMatch(/url/);
    expect(gone.report.exitCode).toBe(1);
  });
});
