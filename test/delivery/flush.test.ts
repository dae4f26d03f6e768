import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerFlush } from '../../src/cli/commands/flush.js';
import { Journal } from '../../src/journal/index.js';
import { wallClockAt, type Punch } from '../../src/punch.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN } from './helpers.js';

/** Punches in the recent past of the real clock (flush runs with the system clock). */
function recentPunches(n: number, code = (i: number) => String(200 + (i % 5))): Punch[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    terminal: 'gate-1',
    biometricCode: code(i),
    logTime: wallClockAt(now - (n - i) * 60_000),
  }));
}

describe('punchgate flush', () => {
  let tmp: ReturnType<typeof tempDir>;
  let sim: HrmsSim;
  let out: string[];
  let err: string[];

  beforeEach(() => {
    process.env.TZ = 'UTC';
    tmp = tempDir('punchgate-flush-');
    out = [];
    err = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
    await sim?.stop();
    tmp.cleanup();
  });

  async function setup(
    punches: Punch[],
    simOpts: Parameters<typeof startHrmsSim>[0] = {},
    token = TOKEN,
  ): Promise<string> {
    sim = await startHrmsSim({ tokens: [TOKEN], ...simOpts });
    writeFileSync(tmp.path('token'), token);
    const cfg = tmp.path('punchgate.yaml');
    writeFileSync(
      cfg,
      [
        'site: plant-f',
        'journal:',
        '  path: journal.db',
        'hrms:',
        `  baseUrl: ${sim.url}`,
        '  tokenFile: token',
        'delivery:',
        '  batchSize: 8',
        '  retry: { baseMs: 10, maxMs: 20 }',
      ].join('\n'),
    );
    const j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-f', mode: 'owner' });
    j.ingest(punches);
    j.close();
    return cfg;
  }

  async function flush(cfg: string, ...args: string[]): Promise<number> {
    const program = new Command('punchgate').option('-c, --config <file>').exitOverride();
    registerFlush(program);
    process.exitCode = undefined;
    await program.parseAsync(['-c', cfg, 'flush', ...args], { from: 'user' });
    return Number(process.exitCode ?? 0);
  }

  function inspect<T>(fn: (j: Journal) => T): T {
    const j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-f', mode: 'shared' });
    try {
      return fn(j);
    } finally {
      j.close();
    }
  }

  it('delivers everything and exits 0 with a one-line summary', async () => {
    const cfg = await setup(recentPunches(30));
    expect(await flush(cfg)).toBe(0);
    expect(sim.attendance()).toHaveLength(30);
    expect(out.join('')).toBe(
      'flush: 30 delivered, 0 already recorded, 0 rejected (4 requests); left: 0 pending, 0 rejected, 0 dead, 0 quarantined\n',
    );
    expect(inspect((j) => j.queries.counts().delivered)).toBe(30);
  });

  it('exits 75 with a clear line when the HRMS refuses the token, charging nothing', async () => {
    const cfg = await setup(recentPunches(5), {}, 'wrong-token-9999');
    expect(await flush(cfg)).toBe(75);
    // It names the address that refused, as its other lines and the daemon's AUTH FAILED line do.
    const address = sim.url.replace(/\/$/, '').replace(/[.]/g, '\\.');
    expect(err.join('')).toMatch(
      new RegExp(`^HRMS delivery to ${address}/?: HRMS refused the token: Bearer token is not correct`, 'm'),
    );
    expect(err.join('')).not.toContain('wrong-token-9999');
    expect(inspect((j) => j.queries.list().map((p) => [p.state, p.attempts]))).toEqual(Array(5).fill(['pending', 0]));
    expect(inspect((j) => j.deliveryState.get().auth)).toBe('failed');
  });

  it('exits 75 when the HRMS stays unreachable for --max-wait', async () => {
    const cfg = await setup(recentPunches(4));
    await sim.stop();
    const t = Date.now();
    expect(await flush(cfg, '--max-wait', '0.2')).toBe(75);
    // Its 0.2 s, not the 60 s default; room for a loaded CI box.
    expect(Date.now() - t).toBeLessThan(20_000);
    // It names the address it could not reach, as the daemon's lines do: a wrong baseUrl is seen at once.
    const address = sim.url.replace(/\/$/, '').replace(/[.]/g, '\\.');
    expect(err.join('')).toMatch(
      new RegExp(`^HRMS delivery to ${address}/?: not reachable within --max-wait: .*ECONNREFUSED`, 'm'),
    );
    expect(out.join('')).toMatch(/left: 4 pending/);
  });

  it('--all sends rejected punches again now, ignoring their backoff', async () => {
    const cfg = await setup(
      recentPunches(6, (i) => (i === 2 ? '666' : String(300 + i))),
      { faults: { poisonCodes: ['666'] } },
    );
    expect(await flush(cfg)).toBe(0);
    expect(out.join('')).toMatch(/5 delivered, 0 already recorded, 1 rejected/);
    const requests = sim.requests();
    expect(await flush(cfg)).toBe(0);
    expect(sim.requests()).toBe(requests);
    expect(await flush(cfg, '--all')).toBe(0);
    expect(sim.requests()).toBe(requests + 1);
    expect(inspect((j) => j.queries.list({ state: 'rejected' }).map((p) => [p.biometricCode, p.attempts]))).toEqual([
      ['666', 2],
    ]);
  });

  it('the built CLI exits 0 when all is delivered and 75 when the token is refused (real process)', async () => {
    // The suite's global setup builds dist/ before any test runs.
    expect(existsSync('dist/punchgate.js')).toBe(true);
    const cfg = await setup(recentPunches(9));
    const env: NodeJS.ProcessEnv = { ...process.env, TZ: 'UTC' };
    delete env.PUNCHGATE_HRMS_TOKEN;
    delete env.CREDENTIALS_DIRECTORY;
    const cli = (...args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['dist/punchgate.js', '--config', cfg, 'flush', ...args], { env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const ok = await cli('--max-wait', '5');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^flush: 9 delivered, .*left: 0 pending/);
    expect(sim.attendance()).toHaveLength(9);

    const j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-f', mode: 'shared' });
    j.ingest(recentPunches(2, () => '999'));
    j.close();
    writeFileSync(tmp.path('token'), 'revoked-token-77');
    const refused = await cli();
    expect(refused.code).toBe(75);
    expect(refused.stderr).toMatch(/HRMS refused the token: Bearer token is not correct/);
    expect(refused.stderr + refused.stdout).not.toContain('revoked-token-77');
  });

  it('refuses a --max-wait that is not a number of seconds', async () => {
    const cfg = await setup([]);
    await expect(flush(cfg, '--max-wait', 'soon')).rejects.toThrow(/number of seconds/);
  });
});
