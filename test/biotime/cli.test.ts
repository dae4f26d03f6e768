import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { SIM_TERMINALS } from '../../src/sim/biotime/index.js';
import { cliSandbox } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { PASSWORD, startSim, ZONE } from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('BioTime through the CLI', () => {
  it('poll reads the server once; check, terminals and status name it and the terminals behind it', async () => {
    const sim = await startSim(120);
    cleanups.push(() => sim.stop());
    const server = {
      name: 'hq',
      kind: 'biotime',
      baseUrl: sim.url,
      username: 'admin',
      passwordFile: 'hq.pass',
      timezone: ZONE,
      timeoutMs: 5000,
    };
    const s = cliSandbox({ terminals: [server] });
    cleanups.push(() => s.tmp.cleanup());
    writeFileSync(s.tmp.path('hq.pass'), PASSWORD + '\n');
    const poll = await s.cli('poll');
    expect(poll.stdout).toMatch(/^hq: ok, 120 transactions read \(120 new, 0 known\) in 1 page\n$/);
    expect(poll.status).toBe(0);
    const terminals = await s.cli('terminals');
    for (const t of SIM_TERMINALS) expect(terminals.stdout).toContain(`terminal behind it: ${t.sn} ${t.alias}`);
    const status = await s.cli('status');
    expect(status.stdout).toMatch(/CQZ7232160001 {2}Main entrance \(Head office\) {2}last punch \d{4}-/);
    const check = await s.cli('check');
    expect(check.stdout).toMatch(/terminal hq.*account admin accepted \(JWT token\), 120 transactions/);
    writeFileSync(s.tmp.path('log.csv'), '1001,2026-11-28 08:00:00\n');
    const imported = await s.cli('import', s.tmp.path('log.csv'), '--terminal', 'hq');
    expect(imported.status).toBe(78);
    expect(imported.stderr).toMatch(/hq is a BioTime server, with several terminals behind it/);
    expect(`${poll.stdout}${terminals.stdout}${status.stdout}${check.stdout}${check.stderr}`).not.toContain(PASSWORD);
  });

  it('punchgate sim biotime serves until SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      ['dist/punchgate.js', 'sim', 'biotime', '--port', '0', '--transactions', '30', '--hostile'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    await waitFor(() => /listening on http/.test(out), 15_000, 'the simulator listening');
    expect(out).toMatch(
      /BioTime server simulator listening on http:\/\/127\.0\.0\.1:\d+ \(user admin, 36 transactions from 3 terminals; hostile rows\)/,
    );
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
