import { utimesSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal, OwnerLock } from '../../src/journal/index.js';
import { buildStatus, formatStatus, probeDaemon } from '../../src/status/index.js';
import type { LiveFacts } from '../../src/status/types.js';
import { spawnDaemon } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const MIN = 60_000;

describe('the status tells the truth', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let journal: Journal;
  const config = () =>
    parseConfig(
      {
        site: 'plant-s',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        status: { intervalMs: 60_000 },
        terminals: [
          { name: 'gate-1', kind: 'zk', host: '10.0.0.1' },
          { name: 'gate-2', kind: 'zk', host: '10.0.0.2' },
        ],
      },
      tmp.dir,
    );

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-s', clock, mode: 'owner' });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  it('says when the journal is busy, for how long, and what is held in memory meanwhile', () => {
    const r = buildStatus(journal, config(), clock.now(), {
      live: { journalBusySince: clock.now() - 42_000, heldPunches: 17 },
    });
    expect(r.journal).toMatchObject({ busySince: '2026-11-22T11:59:18.000Z', heldPunches: 17 });
    expect(r.alerts[0]).toBe(
      `journal busy for 42 s (another process holds it): 17 punches held in memory, written as soon as it is free: if it lasts, find the process (fuser -v ${tmp.path('j.db')}) and end it`,
    );
    expect(formatStatus(r)).toContain('! journal busy for 42 s (another process holds it)');
  });

  it("says while the journal's checkpoints run on the main thread because the checkpoint thread failed, and not once it is back", () => {
    const withCheckpoints = (checkpoints: NonNullable<LiveFacts['checkpoints']>) =>
      buildStatus(journal, config(), clock.now(), {
        freeBytes: null,
        live: { journalBusySince: null, heldPunches: 0, checkpoints },
      });
    const failed = withCheckpoints({
      thread: 'failed',
      failedAt: clock.now() - 5 * MIN,
      error: 'SQLITE_FULL: database or disk is full',
      failures: 2,
    });
    expect(failed.journal.checkpoints).toEqual({
      thread: 'failed',
      failedAt: '2026-11-22T11:55:00.000Z',
      error: 'SQLITE_FULL: database or disk is full',
      failures: 2,
    });
    expect(failed.alertItems.map((a) => a.kind)).toEqual(['journal-checkpoints']);
    expect(formatStatus(failed)).toMatch(
      /! the journal's checkpoint thread failed at .* \(2 times in a row\): SQLITE_FULL: database or disk is full; punches are kept, .*: free space on the journal's disk \(df -h\)/,
    );
    for (const thread of ['running', 'idle', 'restarted'] as const)
      expect(withCheckpoints({ thread, failedAt: null, error: null, failures: 0 }).alerts).toEqual([]);
  });

  it("says when the journal's disk is slow to sync (one sync in ten half a second or more), not for a hiccup", () => {
    const withSyncs = (syncs: number, p90Ms: number, maxMs: number) =>
      buildStatus(journal, config(), clock.now(), {
        freeBytes: null,
        live: { journalBusySince: null, heldPunches: 0, diskSync: { syncs, p90Ms, maxMs, windowMinutes: 10 } },
      });
    const slow = withSyncs(40, 820, 2400);
    expect(slow.journal.diskSync).toEqual({ syncs: 40, p90Ms: 820, maxMs: 2400, windowMinutes: 10 });
    expect(slow.alertItems.map((a) => a.kind)).toEqual(['journal-disk-slow']);
    expect(slow.alerts[0]).toBe(
      "the journal's disk is slow: one sync in ten took 0.8 s or more in the last 10 min (40 syncs, the slowest 2.4 s; a healthy SD card takes under 0.05 s): punches are kept, but push terminals wait that long for each OK: a worn SD card or a failing disk does this: look at the kernel log (journalctl -k), and move journal.path to better storage (docs/operate.md)",
    );
    expect(formatStatus(slow)).toContain("! the journal's disk is slow");
    // A fast disk with one slow sync, and too few syncs to judge: no alert, the figures still shown.
    expect(withSyncs(40, 12, 3000).alerts).toEqual([]);
    expect(withSyncs(9, 900, 900).alerts).toEqual([]);
    expect(withSyncs(9, 900, 900).journal.diskSync).toMatchObject({ syncs: 9 });
    // Where the daemon does not run (or made no sync): no figures at all.
    expect(buildStatus(journal, config(), clock.now(), { freeBytes: null }).journal.diskSync).toBeUndefined();
  });

  it('says when the disk is nearly full, and almost full', () => {
    const near = buildStatus(journal, config(), clock.now(), { freeBytes: 100 * 1024 * 1024 });
    expect(near.alerts).toContain(
      'disk nearly full: only 100 MiB free for the journal: free space (apt-get clean, journalctl --vacuum-size=100M) or move journal.path to a larger disk',
    );
    const full = buildStatus(journal, config(), clock.now(), { freeBytes: 5 * 1024 * 1024 });
    expect(full.alerts[0]).toMatch(/^disk almost full: only 5 MiB free/);
    expect(buildStatus(journal, config(), clock.now(), { freeBytes: 10 * 1024 ** 3 }).alerts).toEqual([]);
  });

  it('a daemon stopped on an almost full disk: the not-running alert sends the admin to the space first', () => {
    // A trial on a 3 MB tmpfs: "start it" came first, and starting it only met the full disk again.
    const down = { running: false, statusLogAt: null, stale: false };
    const full = buildStatus(journal, config(), clock.now(), { freeBytes: 100 * 1024, daemon: down });
    expect(full.alerts[0]).toBe(
      "punchgate run is not running (nothing holds the journal lock): no punch is collected or delivered; the journal's disk is almost full, which stops it: free space on the journal's disk first (the disk alert below), then start it: sudo systemctl start punchgate (journalctl -u punchgate -n 50 says why it stopped)",
    );
    expect(full.alerts[1]).toMatch(/^disk almost full: only 100 KiB free for the journal/);
    const roomy = buildStatus(journal, config(), clock.now(), { freeBytes: 10 * 1024 ** 3, daemon: down });
    expect(roomy.alerts[0]).toMatch(/no punch is collected or delivered: start it: sudo systemctl start punchgate/);
  });

  it('alerts when punches are in flight far longer than a request can take', () => {
    journal.ingest([{ terminal: 'gate-1', biometricCode: '1', logTime: '2026-11-22 08:00:00' }]);
    journal.claim(10);
    clock.advance(5 * MIN);
    expect(buildStatus(journal, config(), clock.now(), { freeBytes: null }).alerts).toEqual([]);
    clock.advance(20 * MIN);
    const r = buildStatus(journal, config(), clock.now(), { freeBytes: null });
    expect(r.journal.inflightSince).toBe('2026-11-22T12:00:00.000Z');
    expect(r.alerts).toEqual([
      '1 punch in flight for 25 min, far longer than a request can take (one process holds them): they go back to the queue when their process ends; if punchgate run hangs, restart it',
    ]);
  });

  it('keeps telling about punches recorded while a clock was behind after the clock is right again', () => {
    // The log was read up to 2026-11-21 09:00; then the clock was reset to 2019 and punches came in.
    journal.ingest([{ terminal: 'gate-1', device: 'SN-1', biometricCode: '1', logTime: '2026-11-21 08:00:00' }]);
    const r1 = journal.ingest(
      [
        { terminal: 'gate-1', device: 'SN-1', biometricCode: '2', logTime: '2019-01-01 00:05:00' },
        { terminal: 'gate-1', device: 'SN-1', biometricCode: '3', logTime: '2019-01-01 02:10:00' },
        // Recorded after the last read, before the reset: genuine.
        { terminal: 'gate-1', device: 'SN-1', biometricCode: '4', logTime: '2026-11-21 10:00:00' },
      ],
      { readUpTo: '2026-11-21 09:00:00', clockSkewSeconds: -7 * 365 * 86_400 },
    );
    expect(r1).toEqual({ added: 1, duplicates: 0, quarantined: 2 });
    // The skew alert is gone (the clock was set right); the quarantine still says what happened.
    journal.terminals.update('gate-1', { online: true, serial: 'SN-1', skewSeconds: 1, lastPollAt: clock.now() });
    const r = buildStatus(journal, config(), clock.now(), { freeBytes: null });
    expect(r.alerts).toEqual([
      "terminal gate-1: 2 punches quarantined, dated 2019-01-01 00:05 to 2019-01-01 02:10: recorded while its clock was behind: set the terminal's clock right if it is not yet (syncClock: true for gate-1 sets it at each poll); then check them (punchgate punches --state quarantined --terminal gate-1): punchgate punches release --terminal gate-1 sends them with the dates it recorded (correct them in the HRMS), or leave them quarantined",
    ]);
    const rows = journal.queries.list({ state: 'quarantined' });
    expect(rows.map((p) => p.lastMessage)).toEqual([
      'quarantined: recorded while the terminal clock was behind: new after its log was read up to 2026-11-21 09:00',
      'quarantined: recorded while the terminal clock was behind: new after its log was read up to 2026-11-21 09:00',
    ]);
  });

  it('does not quarantine old punches without evidence that the clock was behind', () => {
    // A first read of an old terminal (no readUpTo), and a log read again while the clock is right.
    expect(
      journal.ingest([{ terminal: 'gate-1', device: 'SN-1', biometricCode: '1', logTime: '2019-05-01 08:00:00' }])
        .added,
    ).toBe(1);
    expect(
      journal.ingest([{ terminal: 'gate-1', device: 'SN-1', biometricCode: '2', logTime: '2026-11-01 08:00:00' }], {
        readUpTo: '2026-11-21 09:00:00',
        clockSkewSeconds: 3,
      }).added,
    ).toBe(1);
    // A real-time event from a terminal whose clock is right is taken whatever its date says.
    expect(
      journal.ingest([{ terminal: 'gate-1', biometricCode: '3', logTime: '2026-11-19 08:00:00' }], {
        live: true,
        clockSkewSeconds: 0,
      }).added,
    ).toBe(1);
    // One from a terminal known to be years behind, or a serial line days old, is quarantined.
    expect(
      journal.ingest([{ terminal: 'gate-1', biometricCode: '4', logTime: '2019-11-22 11:00:00' }], {
        live: true,
        clockSkewSeconds: -7 * 365 * 86_400,
      }).quarantined,
    ).toBe(1);
    expect(
      journal.ingest([{ terminal: 'door', biometricCode: '5', logTime: '2026-11-18 08:00:00' }], { live: true })
        .quarantined,
    ).toBe(1);
  });
});

describe('punchgate status says whether the daemon runs', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** A site whose daemon holds the journal's lock and rewrote its status log just now; `statusJson`: its status.json. */
  function runningSite(statusJson?: unknown, intervalMs = 60_000) {
    const { tmp } = site();
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-s', mode: 'owner' }).close();
    const lock = OwnerLock.acquire(tmp.path('journal.db'));
    cleanups.push(() => lock.release());
    writeFileSync(tmp.path('status.txt'), 'now\n');
    if (statusJson !== undefined) writeFileSync(tmp.path('status.json'), JSON.stringify(statusJson));
    const config = parseConfig(
      {
        site: 'plant-s',
        journal: { path: 'journal.db' },
        hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' },
        status: { intervalMs },
      },
      tmp.dir,
    );
    return { tmp, config };
  }

  function site() {
    const tmp = tempDir('punchgate-status-');
    cleanups.push(() => tmp.cleanup());
    const configPath = tmp.path('punchgate.yaml');
    writeFileSync(tmp.path('token'), 'tok\n');
    writeFileSync(
      configPath,
      stringify({
        site: 'plant-s',
        journal: { path: 'journal.db' },
        hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token', connectTimeoutMs: 500, timeoutMs: 500 },
        // The page on a port of its own: another test's daemon on the default 9330 made the alert
        // "the status page cannot listen" appear where this test expects "No alerts." (CI, Node 24).
        status: { intervalMs: 1000, listen: '127.0.0.1:0' },
        terminals: [],
      }),
    );
    return { tmp, configPath };
  }

  it('not running, running, and killed: the status says which', async () => {
    const { tmp, configPath } = site();
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-s', mode: 'owner' }).close();
    const notRunning =
      'punchgate run is not running (nothing holds the journal lock): no punch is collected or delivered: start it: sudo systemctl start punchgate (journalctl -u punchgate -n 50 says why it stopped)';
    let r = await runPunchgate(['--config', configPath, 'status']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`! ${notRunning}`);
    const json = await runPunchgate(['--config', configPath, 'status', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ daemon: { running: false }, alerts: [notRunning] });

    const d = spawnDaemon(configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    await waitFor(() => d.output().includes('punchgate running'), 15_000, 'the daemon running');
    r = await runPunchgate(['--config', configPath, 'status']);
    expect(r.stdout).not.toContain('not running');
    expect(r.stdout).toContain('No alerts.');

    d.child.kill('SIGKILL');
    await d.exited;
    r = await runPunchgate(['--config', configPath, 'status']);
    // Now with when it last wrote its status log: what the status shows is as of then.
    expect(r.stdout).toMatch(
      /! punchgate run is not running \(nothing holds the journal lock; its status log was last written at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d, and what follows is as it saw it then\): no punch is collected or delivered: start it/,
    );
  }, 60_000);

  it('a daemon that holds its lock but no longer rewrites its status log is named stuck', () => {
    const { tmp, config } = runningSite(undefined, 1000);
    const tenMinutesAgo = (Date.now() - 10 * MIN) / 1000;
    utimesSync(tmp.path('status.txt'), tenMinutesAgo, tenMinutesAgo);
    const probe = probeDaemon(config, Date.now());
    expect(probe).toMatchObject({ running: true, stale: true });
    const j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-s', mode: 'readonly' });
    const r = buildStatus(j, config, Date.now(), { daemon: probe, freeBytes: null });
    j.close();
    expect(r.alerts[0]).toMatch(
      /^punchgate run has not rewritten the status log since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d: it may be stuck: look at journalctl -u punchgate and restart it/,
    );
  });
  it("a running daemon's event-loop figures, with the jobs that held its loop, reach `punchgate status` from its status.json", () => {
    const longTasks = [{ label: 'delivery batch (settle and claim)', count: 3, maxMs: 41.5, totalMs: 97.2 }];
    const since = new Date(Date.now() - 5000).toISOString();
    const { config } = runningSite({ eventLoop: { p50Ms: 10.1, p99Ms: 22.3, maxMs: 41.9, since, longTasks } });
    const probe = probeDaemon(config, Date.now());
    expect(probe.live?.eventLoop).toEqual({
      p50Ms: 10.1,
      p99Ms: 22.3,
      maxMs: 41.9,
      since: Date.parse(since),
      longTasks,
    });
  });
  it("a running daemon's failed checkpoint thread reaches `punchgate status` from its status.json", () => {
    const failedAt = new Date(Date.now() - 60_000).toISOString();
    const { config } = runningSite({
      journal: {
        checkpoints: { thread: 'failed', failedAt, error: 'SQLITE_FULL: database or disk is full', failures: 1 },
      },
    });
    expect(probeDaemon(config, Date.now()).live?.checkpoints).toEqual({
      thread: 'failed',
      failedAt: Date.parse(failedAt),
      error: 'SQLITE_FULL: database or disk is full',
      failures: 1,
    });
  });
  it("`punchgate status` says the HRMS is probed only when the daemon said so, and each sink's next try, from its status.json", () => {
    // A refused token waits authRetryMs without probing: status --json said "probing": true there
    // (taken from nextTryAt alone), /status.json false; another sink's next try was never shown.
    const next = new Date(Date.now() + 170_000).toISOString();
    const probeNext = new Date(Date.now() + 5000).toISOString();
    const { config } = runningSite({
      delivery: { nextTryAt: next, probing: false },
      sinks: [
        { name: 'hrms', delivery: { nextTryAt: next, probing: false } },
        { name: 'erp', delivery: { nextTryAt: probeNext, probing: true } },
      ],
    });
    const probe = probeDaemon(config, Date.now());
    expect(probe.live?.delivery).toEqual({ nextTryAt: Date.parse(next), probing: false });
    expect(probe.live?.sinks).toEqual({
      hrms: { nextTryAt: Date.parse(next), probing: false },
      erp: { nextTryAt: Date.parse(probeNext), probing: true },
    });
  });
  it("a Frappe sink's shift sync failing is said by `punchgate status` as by the page, from the daemon's status.json", () => {
    // Known only to the daemon: the page said it, `punchgate status` never did (a new-admin trial).
    const { tmp, config } = runningSite();
    const facts = { failingSince: Date.now() - 20 * MIN, lastError: 'Shift Type Night not found', lastSet: {} };
    const j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-s', mode: 'readonly' });
    cleanups.push(() => j.close());
    const daemonView = buildStatus(j, config, Date.now(), {
      freeBytes: null,
      live: {
        journalBusySince: null,
        heldPunches: 0,
        sinks: { erp: { nextTryAt: null, probing: false, shiftSync: facts } },
      },
    });
    writeFileSync(tmp.path('status.txt'), 'now\n');
    writeFileSync(tmp.path('status.json'), JSON.stringify(daemonView));
    const probe = probeDaemon(config, Date.now());
    expect(probe.live?.sinks?.erp?.shiftSync).toEqual(facts);
    const cli = buildStatus(j, config, Date.now(), { freeBytes: null, daemon: probe });
    const said = daemonView.alerts.filter((a) => /shift/i.test(a));
    expect(said).toHaveLength(1);
    expect(cli.alerts.filter((a) => /shift/i.test(a))).toEqual(said);
  });
});
