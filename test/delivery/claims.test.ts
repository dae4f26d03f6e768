import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { spawnDaemon, unitEnvironment } from '../daemon/stack.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN = 'claims-token-7c1d';
const PUNCHES = 200;

/**
 * In flight means in flight: a claim names the process that holds it, and only claims of a
 * process that is gone go back to the queue. Two deliverers on one journal (two flushes, a run
 * started while a flush has a batch out) never send the same punch (real child processes, a slow
 * HRMS simulator).
 */
describe('claims held by a live process', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup() {
    const tmp = tempDir('punchgate-claims-');
    cleanups.push(() => tmp.cleanup());
    const hrms: HrmsSim = await startHrmsSim({ tokens: [TOKEN] });
    cleanups.push(() => hrms.stop());
    writeFileSync(tmp.path('token'), `${TOKEN}\n`);
    const configPath = tmp.path('punchgate.yaml');
    writeFileSync(
      configPath,
      stringify({
        site: 'plant-c',
        journal: { path: 'journal.db' },
        hrms: { baseUrl: hrms.url, tokenFile: 'token', timeoutMs: 10_000, connectTimeoutMs: 5000 },
        delivery: { batchSize: 50, pollIntervalMs: 100 },
        status: { intervalMs: 500 },
        terminals: [],
      }),
    );
    // The daemon ran once and journalled a backlog.
    const journal = Journal.open({ path: tmp.path('journal.db'), site: 'plant-c', mode: 'owner' });
    journal.ingest(
      Array.from({ length: PUNCHES }, (_, i) => ({
        terminal: 'gate-1',
        biometricCode: String(1000 + (i % 50)),
        logTime: `2026-11-22 ${String(6 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
      })),
    );
    journal.close();
    return { tmp, hrms, configPath };
  }

  function flush(configPath: string) {
    const child = spawn(process.execPath, ['dist/punchgate.js', '--config', configPath, 'flush', '--max-wait', '60'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...unitEnvironment(), PUNCHGATE_HRMS_TOKEN: '' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
    return { child, exited, output: () => out };
  }

  /** Each devicelogId the HRMS received, and how often. */
  const sentTwice = (hrms: HrmsSim) => {
    const seen = new Map<string, number>();
    for (const p of hrms.received()) seen.set(p.devicelogId ?? '', (seen.get(p.devicelogId ?? '') ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  };

  it('two flushes against a slow HRMS never send the same punch', async () => {
    const { hrms, configPath } = await setup();
    hrms.setFaults({ latencyMs: 1500 });
    const a = flush(configPath);
    await waitFor(() => hrms.requests() > 0, 15_000, 'the first flush has a batch out');
    const b = flush(configPath);
    expect(await a.exited, a.output()).toBe(0);
    expect(await b.exited, b.output()).toBe(0);
    expect(hrms.attendance()).toHaveLength(PUNCHES);
    expect(sentTwice(hrms)).toEqual([]);
  }, 90_000);

  it('a run started while a flush has a batch out leaves that batch to the flush', async () => {
    const { tmp, hrms, configPath } = await setup();
    hrms.setFaults({ latencyMs: 2500 });
    const f = flush(configPath);
    await waitFor(() => hrms.requests() > 0, 15_000, 'the flush has a batch out');
    const d = spawnDaemon(configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    await waitFor(() => d.output().includes('punchgate running'), 15_000, 'the daemon running');
    // The flush has a batch out (each takes 2.5 s): from now on the HRMS answers at once, so a
    // daemon that took that batch as abandoned would send it again before the flush's answer.
    hrms.setFaults({ latencyMs: 0 });
    expect(await f.exited, f.output()).toBe(0);
    await waitFor(() => hrms.attendance().length === PUNCHES, 60_000, 'every punch delivered');
    expect(sentTwice(hrms)).toEqual([]);
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
    const j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-c', mode: 'readonly' });
    expect(j.counts()).toMatchObject({ delivered: PUNCHES, inflight: 0, pending: 0 });
    j.close();
  }, 90_000);

  it('the claims of a flush that was killed go back to the queue, and the next deliverer sends them', async () => {
    const { tmp, hrms, configPath } = await setup();
    hrms.setFaults({ latencyMs: 3000 });
    const killed = flush(configPath);
    await waitFor(() => hrms.requests() > 0, 15_000, 'the flush has a batch out');
    // While it lives, its claims name it.
    const j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-c', mode: 'readonly' });
    const holders = j.db.prepare(`SELECT DISTINCT claimed_by AS h FROM punches WHERE state = 'inflight'`).all() as {
      h: string;
    }[];
    expect(holders).toHaveLength(1);
    expect(holders[0]!.h).toMatch(new RegExp(`^${killed.child.pid}-`));
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(j.counts().inflight).toBeGreaterThan(0);
    j.close();
    hrms.setFaults({ latencyMs: 0 });
    const next = flush(configPath);
    expect(await next.exited, next.output()).toBe(0);
    const after = Journal.open({ path: tmp.path('journal.db'), site: 'plant-c', mode: 'readonly' });
    expect(after.counts()).toMatchObject({ delivered: PUNCHES, inflight: 0, pending: 0 });
    after.close();
    expect(new Set(hrms.attendance().map((p) => p.devicelogId)).size).toBe(PUNCHES);
  }, 90_000);
});
