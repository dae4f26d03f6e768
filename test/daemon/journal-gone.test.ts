import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The journal's whole folder gone at a start (a USB disk or mount that did not come up, an rm -r):
 * punchgate run made a new folder and an empty journal without a word, so the punches the old one
 * still owed seemed lost, and once the disk came up the old journal reappeared over the new one.
 * Where the status log (kept elsewhere) says this journal ran, the start is refused (74).
 */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Child {
  exited: Promise<number | null>;
  out: () => string;
  stop: () => void;
}

function start(config: string): Child {
  const { PUNCHGATE_HRMS_TOKEN: _t, NOTIFY_SOCKET: _n, CREDENTIALS_DIRECTORY: _c, ...env } = process.env;
  const child = spawn(process.execPath, [join(process.cwd(), 'dist/punchgate.js'), 'run', '--config', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return { exited, out: () => out, stop: () => child.kill('SIGTERM') };
}

/** A box whose journal is on its own disk (`disk/`) and whose status log is in the state folder. */
function box(status: Record<string, unknown>) {
  const tmp = tempDir('punchgate-gone-');
  cleanups.push(tmp.cleanup);
  mkdirSync(tmp.path('disk'));
  mkdirSync(tmp.path('state'));
  const config = tmp.path('punchgate.yaml');
  writeFileSync(
    config,
    stringify({
      site: 'plant-a',
      journal: { path: tmp.path('disk/journal.db') },
      hrms: { baseUrl: 'http://127.0.0.1:9' },
      status: { listen: false, intervalMs: 200, ...status },
      terminals: [],
    }),
  );
  return { tmp, config };
}

async function runOnce(config: string, statusJson: string): Promise<void> {
  const first = start(config);
  await waitFor(() => existsSync(statusJson), 20_000, `the status log:\n${first.out()}`);
  first.stop();
  expect(await first.exited, first.out()).toBe(0);
}

describe('a journal that ran here and is gone at the start', () => {
  it('its whole folder gone (a disk that did not come up): refused with 74, the path and the fix; nothing made', async () => {
    const { tmp, config } = box({ path: 'state/status.txt' });
    const statusJson = tmp.path('state/status.json');
    await runOnce(config, statusJson);
    rmSync(tmp.path('disk'), { recursive: true });

    const again = start(config);
    // A daemon that starts anyway is stopped after a while: exit 0, not 74.
    const timer = setTimeout(again.stop, 15_000);
    const code = await again.exited;
    clearTimeout(timer);
    expect(code, again.out()).toBe(74);
    expect(again.out()).toContain(
      `the journal ${tmp.path('disk/journal.db')} does not exist, and its folder ${tmp.path('disk')} is gone`,
    );
    expect(again.out()).toContain(statusJson);
    expect(again.out()).toContain('mount');
    expect(existsSync(tmp.path('disk'))).toBe(false);
    // The status says the same, not "punchgate run creates it at its first start".
    const status = await runPunchgate(['--config', config, 'status']);
    expect(status.status).toBe(74);
    expect(status.stderr).toContain(`its folder ${tmp.path('disk')} is gone, while the status log ${statusJson}`);
  }, 60_000);

  it('the journal file alone gone, its status log beside it: refused with 74 too', async () => {
    const { tmp, config } = box({});
    const statusJson = tmp.path('disk/status.json');
    await runOnce(config, statusJson);
    for (const f of ['journal.db', 'journal.db-wal', 'journal.db-shm']) rmSync(tmp.path(`disk/${f}`), { force: true });

    const again = start(config);
    const timer = setTimeout(again.stop, 15_000);
    const code = await again.exited;
    clearTimeout(timer);
    expect(code, again.out()).toBe(74);
    expect(again.out()).toContain(statusJson);
    expect(existsSync(tmp.path('disk/journal.db'))).toBe(false);
    // Starting empty on purpose: the status log's record moved away, as the line says.
    rmSync(statusJson);
    const fresh = start(config);
    await waitFor(() => existsSync(statusJson), 20_000, `a new journal's start:\n${fresh.out()}`);
    fresh.stop();
    expect(await fresh.exited).toBe(0);
  }, 90_000);
});
