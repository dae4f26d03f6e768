import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import type { UnixDgramModule } from '../../src/daemon/sd-notify.js';
import { applyMigration, MIGRATIONS, SCHEMA_VERSION } from '../../src/journal/migrations.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * The first start of a new version upgrades an older journal before READY=1. systemd's start
 * timeout (90 s by default) could end a long upgrade on a large journal and a slow card: the step
 * under way is rolled back and the next start begins it again, for ever, with the service down.
 * An upgrade trial found nothing told systemd to wait; each step now sends EXTEND_TIMEOUT_USEC
 * with a STATUS saying what runs.
 */
interface DgramServer {
  bind(path: string): void;
  close(): void;
}
const dgram = createRequire(import.meta.url)('unix-dgram') as UnixDgramModule;

describe("the daemon's start on an older journal, under systemd", () => {
  const tmp = tempDir('punchgate-migration-notify-');
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
    tmp.cleanup();
  });

  it('asks systemd to wait before each step of the schema upgrade, then says READY=1', async () => {
    const old = 10;
    const journal = tmp.path('journal.db');
    const db = new Database(journal);
    db.transaction(() => {
      for (const m of MIGRATIONS.slice(0, old)) applyMigration(db, m);
      db.pragma(`user_version = ${old}`);
    })();
    db.close();
    const config = tmp.path('punchgate.yaml');
    writeFileSync(
      config,
      stringify({
        site: 'plant-a',
        journal: { path: journal },
        hrms: { baseUrl: 'http://127.0.0.1:9' },
        terminals: [],
      }),
    );

    const socketPath = tmp.path('notify');
    const messages: string[] = [];
    let ready: () => void = () => {};
    const gotReady = new Promise<void>((r) => (ready = r));
    const server = dgram.createSocket('unix_dgram', (msg: Buffer) => {
      messages.push(msg.toString('utf8'));
      if (msg.toString('utf8').startsWith('READY=1')) ready();
    }) as unknown as DgramServer;
    server.bind(socketPath);
    cleanups.push(
      () => server.close(),
      () => rmSync(socketPath, { force: true }),
    );

    const { PUNCHGATE_CONFIG: _p, NOTIFY_SOCKET: _n, ...env } = process.env;
    const child = spawn(process.execPath, [join(process.cwd(), 'dist/punchgate.js'), '--config', config, 'run'], {
      env: { ...env, NOTIFY_SOCKET: socketPath },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    cleanups.push(() => child.kill('SIGKILL'));
    await gotReady;
    child.kill('SIGTERM');
    await exited;

    const readyAt = messages.findIndex((m) => m.startsWith('READY=1'));
    const extends_ = messages.slice(0, readyAt).filter((m) => m.startsWith('EXTEND_TIMEOUT_USEC='));
    expect(extends_).toHaveLength(SCHEMA_VERSION - old);
    expect(extends_[0]).toMatch(
      /^EXTEND_TIMEOUT_USEC=\d+\nSTATUS=upgrading the journal to schema \d+: step 11 of \d+$/,
    );
    expect(Number(/=(\d+)/.exec(extends_[0]!)![1])).toBeGreaterThanOrEqual(60_000_000);
  }, 60_000);
});
