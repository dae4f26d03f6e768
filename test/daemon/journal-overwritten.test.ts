import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/journal/sqlite-driver.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { freePort, spawnPunchgate } from '../helpers/daemon-child.js';

/**
 * A backup copied over the running daemon's journal with cp (a restore by hand, the daemon left
 * running): the file keeps its name and inode, so the check of the journal's identity saw nothing.
 * Found by a trial: the daemon went on answering the push terminal OK, "No alerts", while its
 * checkpoints laid the write-ahead log's pages over the backup (`2nd reference to page 80`, rows
 * out of order). Now the next write finds it (the header of a backup is in rollback mode): the
 * daemon exits 74, no terminal is told OK for a punch not kept, the copied file is left as it is.
 */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const child = (args: string[]) => spawnPunchgate(args, cleanups);

function punchesIn(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM punches').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('a backup copied over the running daemon journal', () => {
  it('exits 74 naming it, keeps the old log aside, and leaves the copied file whole', async () => {
    const tmp = tempDir('punchgate-overwritten-');
    cleanups.push(tmp.cleanup);
    const port = await freePort();
    const config = tmp.path('punchgate.yaml');
    const journal = tmp.path('journal.db');
    writeFileSync(
      config,
      stringify({
        site: 'plant-a',
        journal: { path: journal },
        hrms: { baseUrl: 'http://127.0.0.1:9' },
        status: { listen: false, path: tmp.path('status.txt') },
        adms: { listen: `127.0.0.1:${port}` },
        terminals: [{ name: 'lobby', kind: 'adms', serial: 'CQZ7232160001', timezone: 'UTC' }],
      }),
    );
    const daemon = child(['run', '--config', config]);
    await waitFor(
      () => daemon.out().includes('push terminal receiver listening'),
      20_000,
      `the start:\n${daemon.out()}`,
    );
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
      '3000',
      '--batch',
      '10',
    ]);
    await waitFor(() => /OK:\d+/.test(sim.out()), 30_000, `acknowledged uploads:\n${sim.out()}`);
    const backup = child(['backup', '--config', config, tmp.path('backup.db')]);
    expect(await backup.exited, backup.out()).toBe(0);
    const okBefore = (sim.out().match(/OK:\d+/g) ?? []).length;
    await waitFor(() => (sim.out().match(/OK:\d+/g) ?? []).length > okBefore + 5, 30_000, sim.out());

    copyFileSync(tmp.path('backup.db'), journal); // the mistake: cp over the live journal

    // Its next write finds it (the terminal uploads every few ms); before, it ran on, answering OK.
    let bound: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      daemon.exited,
      new Promise((r) => (bound = setTimeout(() => r('still running after 30 s'), 30_000))),
    ]);
    clearTimeout(bound);
    expect(code, daemon.out()).toBe(74);
    const fatal =
      daemon
        .out()
        .split('\n')
        .find((l) => l.includes('"level":60')) ?? '';
    expect(fatal).toContain(`the journal ${journal} was written over in place while punchgate run was writing it`);
    expect(fatal).toContain('punchgate restore');
    sim.c.kill('SIGINT');
    await sim.exited;
    const acked = Number(/(\d+) acknowledged/.exec(sim.out())?.[1]);
    expect(acked).toBeGreaterThan(0);

    // The copied file is as copied (no checkpoint laid the old log over it), no log beside it.
    expect(readFileSync(journal).equals(readFileSync(tmp.path('backup.db')))).toBe(true);
    expect(existsSync(`${journal}-wal`)).toBe(false);
    // The old journal's log is kept aside, and what the connection still read is saved beside
    // it: whole when its cache held every page the cp destroyed (then every punch told OK is in
    // it), else said as lost from it (the fix: restore the newest backup, import the logs since).
    expect(fatal).toMatch(/the write-ahead log is moved aside \(\S+\.overwritten-\w+-wal/);
    const saved = /saved whole as (\S+) /.exec(fatal)?.[1];
    if (saved) expect(punchesIn(saved)).toBeGreaterThanOrEqual(acked);
    else
      expect(fatal).toMatch(/what the open journal (still held is saved as \S+, but damaged|held could not be saved)/);
  }, 120_000);
});
