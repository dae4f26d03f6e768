import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/journal/sqlite-driver.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { freePort, spawnPunchgate } from '../helpers/daemon-child.js';

/**
 * The journal's disk goes read-only under a running daemon: ext4 mounted errors=remount-ro after a
 * disk error (raised here through ext4's own trigger_fs_error, on a loop device). SQLite reports
 * it as a write error, and the daemon said "the disk reports an I/O error". It must stop with 74,
 * say the file system went read-only and what to do, and no push terminal may have been told OK
 * for a punch the journal does not hold. Needs root, a loop device and ext4 (skipped otherwise).
 */
const asRoot = process.getuid?.() === 0;
const tools = ['mkfs.ext4', 'losetup', 'e2fsck'].every((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0);
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const child = (args: string[]) => spawnPunchgate(args, cleanups);

const sh = (cmd: string) => spawnSync('sh', ['-c', cmd], { encoding: 'utf8' });

/**
 * One disk, one daemon, one push terminal streaming 2,000 punches in uploads of 10; the disk's error
 * raised `delayMs` after the first upload was answered, so that it falls among uploads, syncs and
 * their answers. Returns nothing when this machine cannot loop-mount (skipped quietly).
 */
async function oneRound(delayMs: number): Promise<void> {
  const tmp = tempDir('punchgate-rofs-');
  cleanups.push(tmp.cleanup);
  const img = tmp.path('disk.img');
  const disk = tmp.path('disk');
  mkdirSync(disk);
  expect(sh(`truncate -s 64M ${img} && mkfs.ext4 -q -F ${img}`).status).toBe(0);
  const mounted = sh(`mount -o loop,errors=remount-ro ${img} ${disk}`);
  if (mounted.status !== 0) return; // no loop devices in this container
  cleanups.push(() => sh(`umount ${disk}`));
  const loop = sh(`findmnt -no SOURCE ${disk}`).stdout.trim().replace('/dev/', '');
  const trigger = `/sys/fs/ext4/${loop}/trigger_fs_error`;
  if (!existsSync(trigger)) return;

  const port = await freePort();
  const config = tmp.path('punchgate.yaml');
  writeFileSync(
    config,
    stringify({
      site: 'plant-a',
      journal: { path: join(disk, 'journal.db') },
      hrms: { baseUrl: 'http://127.0.0.1:9' },
      status: { listen: false, path: tmp.path('status.txt') },
      adms: { listen: `127.0.0.1:${port}` },
      terminals: [{ name: 'lobby', kind: 'adms', serial: 'CQZ7232160001', timezone: 'UTC' }],
    }),
  );
  const daemon = child(['run', '--config', config]);
  await waitFor(() => daemon.out().includes('push terminal receiver listening'), 20_000, `the start:\n${daemon.out()}`);
  const sim = child([
    'sim',
    'push-terminal',
    '--server',
    `http://127.0.0.1:${port}`,
    '--serial',
    'CQZ7232160001',
    '--users',
    '20',
    '--punches',
    '2000',
    '--batch',
    '10',
  ]);
  await waitFor(() => /OK:\d+/.test(sim.out()), 30_000, `acknowledged uploads:\n${sim.out()}`);
  // The error raised at a moment among the uploads, which go on in the other processes meanwhile.
  const until = performance.now() + delayMs;
  while (performance.now() < until) await new Promise((r) => setImmediate(r));
  writeFileSync(trigger, 'x');

  expect(await daemon.exited, daemon.out()).toBe(75);
  const fatal =
    daemon
      .out()
      .split('\n')
      .find((l) => l.includes('"level":60')) ?? '';
  expect(fatal).toContain(join(disk, 'journal.db'));
  expect(fatal).toContain('went read-only while punchgate wrote');
  expect(fatal).toContain('fsck');
  sim.c.kill('SIGINT');
  await sim.exited;
  const acked = Number(/(\d+) acknowledged/.exec(sim.out())?.[1]);
  expect(acked).toBeGreaterThan(0);

  expect(sh(`umount ${disk} && e2fsck -fy ${img}; mount -o loop ${img} ${disk}`).status).toBe(0);
  const db = new Database(join(disk, 'journal.db'), { readonly: true, fileMustExist: true });
  const kept = (db.prepare('SELECT count(*) AS n FROM punches').get() as { n: number }).n;
  db.close();
  expect(kept, `round with the error ${delayMs} ms after the first OK`).toBeGreaterThanOrEqual(acked);
}

describe.skipIf(!asRoot || !tools)('the journal disk goes read-only under the running daemon', () => {
  // Three rounds, the disk's error at three moments among the uploads. Before the file system
  // probe after each sync (file-system-probe.ts), about 1 run in 30 of this kind (1 in 6 of this
  // test's CI runs) ended with one upload of 10 answered OK and not in the journal after e2fsck:
  // ext4 had ended the fsync covering it with success as the disk's error aborted it.
  it('stops with 75 saying the file system went read-only; every punch a terminal was told OK for is kept', async () => {
    for (const delayMs of [0, 40, 120]) {
      await oneRound(delayMs);
      for (const c of cleanups.splice(0).reverse()) await c();
    }
  }, 180_000);
});

describe.skipIf(!asRoot || !tools)('a start on a journal disk that went read-only', () => {
  // A new-user trial: the disk's error under the daemon ended it with 75 ("punchgate starts again
  // by itself"), but the restart systemd makes found the file system refusing writes only when
  // one is tried (ext4's emergency_ro: access(2) allows them) and ended with 74, "A restart does
  // not mend this", so systemd stopped restarting; and punchgate check said "PASS journal".
  it('ends with 75 again, naming the read-only file system, and check fails the journal with the same words', async () => {
    const tmp = tempDir('punchgate-rofs-start-');
    cleanups.push(tmp.cleanup);
    const img = tmp.path('disk.img');
    const disk = tmp.path('disk');
    mkdirSync(disk);
    expect(sh(`truncate -s 64M ${img} && mkfs.ext4 -q -F ${img}`).status).toBe(0);
    if (sh(`mount -o loop,errors=remount-ro ${img} ${disk}`).status !== 0) return; // no loop devices here
    cleanups.push(() => sh(`umount ${disk}`));
    const loop = sh(`findmnt -no SOURCE ${disk}`).stdout.trim().replace('/dev/', '');
    const trigger = `/sys/fs/ext4/${loop}/trigger_fs_error`;
    if (!existsSync(trigger)) return;
    const config = tmp.path('punchgate.yaml');
    writeFileSync(
      config,
      stringify({
        site: 'plant-a',
        journal: { path: join(disk, 'journal.db') },
        hrms: { baseUrl: 'http://127.0.0.1:9' },
        status: { listen: false, path: tmp.path('status.txt') },
        terminals: [],
      }),
    );
    const first = child(['run', '--config', config]);
    await waitFor(() => first.out().includes('punchgate running'), 20_000, `the start:\n${first.out()}`);
    first.c.kill('SIGTERM');
    expect(await first.exited, first.out()).toBe(0);

    writeFileSync(trigger, 'x');
    const again = child(['run', '--config', config]);
    expect(await again.exited, again.out()).toBe(75);
    expect(again.out()).toContain('read-only');
    expect(again.out()).toContain('punchgate starts again by itself');
    expect(again.out()).not.toContain('A restart does not mend this');

    const check = child(['check', '--config', config]);
    await check.exited;
    const line = check
      .out()
      .split('\n')
      .find((l) => /^(PASS|WARN|FAIL) journal/.test(l));
    expect(line, check.out()).toMatch(/^FAIL journal: .*read-only/);
  }, 60_000);
});
