import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { hashedPunchId } from '../../src/journal/punch-id.js';
import { spawnDaemon, startStack, punchTimes, type DaemonProcess } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const PUNCHES = 40;
const SITE = 'plant-t';
/**
 * Each daemon test below runs two daemons and up to nine CLI child processes: about 20 s of the
 * 30 s default on a box loaded by other test runs (measured 2026-12-02), and now and then over it.
 * As test/daemon's tests, they get room; their waits are for conditions, not for time.
 */
const DAEMON_TEST_MS = 120_000;
/** A wait on a daemon's start and first rounds (a poll, deliveries of 40 punches). */
const DAEMON_WAIT_MS = 60_000;
/** A wait on a CLI child process's answer: a node start and a journal open, seconds on a loaded box. */
const CLI_WAIT_MS = 30_000;

/**
 * One identity for a punch whatever the route it came by (issue 30): `import --terminal X` before
 * X was ever polled, then a poll of X (and the other orders and timings) journal and deliver each
 * punch once, under the devicelogId a poll alone gives it, or, if it was sent before the serial
 * was known, under the id it was sent with. Real daemon, real terminal and HRMS simulators, the
 * import run by the built CLI.
 */
describe('one identity for a punch from every route', { timeout: DAEMON_TEST_MS }, () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(serial: string, hour: number) {
    const stack = await startStack({ serialNumbers: [serial] });
    cleanups.push(() => stack.stop());
    const next = punchTimes('2026-11-19', hour);
    const punches = Array.from({ length: PUNCHES }, (_, i) => ({ userId: String(3000 + (i % 7)), logTime: next() }));
    for (const p of punches) stack.terminals[0]!.addPunch(p);
    // The terminal's USB export of the same log (ZKTeco attlog: pin, time, verify, state, ...).
    const attlog = stack.tmp.path('GATE_attlog.dat');
    writeFileSync(
      attlog,
      punches.map((p) => `${p.userId.padStart(9)}\t${p.logTime}\t1\t0\t1\t0`).join('\r\n') + '\r\n',
    );
    const cli = (...args: string[]) => runPunchgate(['--config', stack.configPath, ...args]);
    const daemon = () => {
      const d = spawnDaemon(stack.configPath);
      cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
      return d;
    };
    const stop = async (d: DaemonProcess) => {
      d.child.kill('SIGTERM');
      await d.exited;
    };
    /** The id a poll alone gives each punch: the device's serial, the code, the time. */
    const byDevice = new Set(
      punches.map((p) =>
        hashedPunchId({ site: SITE, terminal: 'gate-1', device: serial, biometricCode: p.userId, logTime: p.logTime }),
      ),
    );
    const received = () => stack.hrms.received().filter((r) => r.logDate.startsWith('2026-11-19'));
    const keysOf = (rs: { biometriccode: string; logDate: string }[]) =>
      rs.map((r) => `${r.biometriccode}@${r.logDate}`);
    return { stack, punches, attlog, cli, daemon, stop, byDevice, received, keysOf };
  }

  it('import before the terminal was ever polled, then the poll: each punch journalled and delivered once, under the id a poll gives it', async () => {
    const s = await setup('SN-IMPORT-FIRST', 6);
    // The journal exists (the service ran once with the HRMS away), the terminal was never read.
    Journal.open({ path: s.stack.tmp.path('journal.db'), site: SITE, mode: 'owner' }).close();
    const imp = await s.cli('import', '--terminal', 'gate-1', s.attlog);
    expect(imp.status, imp.stderr).toBe(0);
    expect(imp.stdout).toContain(`${PUNCHES} new, 0 duplicates`);
    // The terminal is read (`punchgate poll`, the daemon's own poll) before anything is delivered.
    // Not "the daemon with the HRMS away until its first poll": a batch on the wire when the poll
    // learns the serial may have reached the HRMS, so it rightly keeps the id it was sent with, and
    // on a loaded machine that race decided the ids (CI, 2026-11-28).
    const poll = await s.cli('poll', '--terminal', 'gate-1');
    expect(poll.status, poll.stderr).toBe(0);
    const d = s.daemon();
    await waitFor(() => s.received().length >= PUNCHES, DAEMON_WAIT_MS, 'every punch delivered');
    await waitFor(async () => JSON.parse((await s.cli('status', '--json')).stdout).punches.pending === 0, CLI_WAIT_MS);
    await s.stop(d);
    const got = s.received();
    expect(got).toHaveLength(PUNCHES);
    expect(new Set(s.keysOf(got)).size).toBe(PUNCHES);
    expect(new Set(got.map((r) => r.devicelogId))).toEqual(s.byDevice);
    const listed = (await s.cli('punches', '--limit', '1000', '--json')).stdout.trim().split('\n');
    expect(listed).toHaveLength(PUNCHES);
  });

  it('import delivered before the first poll, then the poll, then the import again: nothing is sent twice, no id changes', async () => {
    const s = await setup('SN-SENT-EARLY', 7);
    // The terminal is unreachable at first (its port closed): only the import reaches the HRMS.
    const port = s.stack.terminals[0]!.port;
    s.stack.writeConfig(undefined, (c) => (c.terminals[0]!.port = 1));
    Journal.open({ path: s.stack.tmp.path('journal.db'), site: SITE, mode: 'owner' }).close();
    expect((await s.cli('import', '--terminal', 'gate-1', s.attlog)).status).toBe(0);
    let d = s.daemon();
    await waitFor(() => s.received().length >= PUNCHES, DAEMON_WAIT_MS, 'the imported punches delivered');
    await s.stop(d);
    const first = s.received().map((r) => r.devicelogId);
    // Sent under the terminal's name (the serial was not known): these ids are the ones the HRMS has.
    expect(first.filter((id) => s.byDevice.has(id!))).toHaveLength(0);

    s.stack.writeConfig(undefined, (c) => (c.terminals[0]!.port = port));
    d = s.daemon();
    await waitFor(
      async () => JSON.parse((await s.cli('status', '--json')).stdout).terminals?.[0]?.lastSuccessAt != null,
      DAEMON_WAIT_MS,
      'the poll',
    );
    const again = await s.cli('import', '--terminal', 'gate-1', s.attlog);
    expect(again.stdout).toContain(`0 new, ${PUNCHES} duplicates`);
    // A few delivery rounds: nothing more is sent.
    const requests = s.stack.hrms.requests();
    await waitFor(async () => (await s.cli('flush', '--max-wait', '1')).status === 0, CLI_WAIT_MS);
    await s.stop(d);
    expect(s.received()).toHaveLength(PUNCHES);
    expect(s.stack.hrms.requests()).toBe(requests);
    const ids = (await s.cli('punches', '--limit', '1000', '--json')).stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { devicelogId: string }).devicelogId);
    expect(ids.sort()).toEqual([...first].sort());
  });

  it('poll first, then import (daemon running): every imported punch is a duplicate', async () => {
    const s = await setup('SN-POLL-FIRST', 8);
    const d = s.daemon();
    await waitFor(() => s.received().length >= PUNCHES, DAEMON_WAIT_MS, 'every polled punch delivered');
    const imp = await s.cli('import', '--terminal', 'gate-1', s.attlog);
    expect(imp.stdout).toContain(`0 new, ${PUNCHES} duplicates`);
    await s.stop(d);
    expect(s.received()).toHaveLength(PUNCHES);
    expect(new Set(s.received().map((r) => r.devicelogId))).toEqual(s.byDevice);
  });
});

/**
 * The same rule in the journal itself, for routes that carry no serial (a real-time event before
 * the device told its serial, a serial reader, a renamed terminal): filed under the device the
 * terminal is known to be, and moved to it once it is learnt.
 */
describe('the journal files a punch without a serial under its terminal’s device', () => {
  const at = (m: number) => `2026-11-19 10:${String(m).padStart(2, '0')}:00`;
  it('learnt later, before and after sending; known already; a journal that holds both copies', () => {
    const tmp = tempDir('punchgate-identity-');
    try {
      const j = Journal.open({ path: tmp.path('journal.db'), site: 's', mode: 'owner' });
      // Stream events before the serial was known, one of them claimed and sent.
      j.ingest([0, 1, 2].map((m) => ({ terminal: 'hik-1', device: '', biometricCode: '7', logTime: at(m) })));
      const [sent] = j.claim(1);
      const sentId = sent!.devicelogId;
      // The poll learns the serial and reads the same three events, and one more.
      const r = j.ingest(
        [0, 1, 2, 3].map((m) => ({ terminal: 'hik-1', device: 'DS-K1T-9', biometricCode: '7', logTime: at(m) })),
      );
      expect(r).toMatchObject({ added: 1, duplicates: 3 });
      // Later events without a serial are the device's too.
      expect(j.ingest([{ terminal: 'hik-1', device: '', biometricCode: '7', logTime: at(3) }])).toMatchObject({
        duplicates: 1,
      });
      const all = j.queries.list({ limit: 100 });
      expect(all).toHaveLength(4);
      expect(all.every((p) => p.device === 'DS-K1T-9')).toBe(true);
      const ids = all.map((p) => p.devicelogId);
      // The one in flight keeps the id it was sent with; the others take the device's.
      expect(ids).toContain(sentId);
      expect(ids.filter((id) => id !== sentId)).toEqual(
        [1, 2, 3].map((m) =>
          hashedPunchId({ site: 's', terminal: 'hik-1', device: 'DS-K1T-9', biometricCode: '7', logTime: at(m) }),
        ),
      );
      j.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('a serial written in other letter case is the same device: the punch again is a duplicate, a new one files under the known spelling', () => {
    // Found by an adversarial trial: a push terminal's serial retyped in lower case in the config
    // (the receiver matches serials whatever their case) made every punch it sent again a new punch.
    const tmp = tempDir('punchgate-identity-');
    try {
      const j = Journal.open({ path: tmp.path('journal.db'), site: 's', mode: 'owner' });
      j.ingest([{ terminal: 'lobby', device: 'ADVSIM0001', biometricCode: '1023', logTime: at(1) }]);
      const r = j.ingest([
        { terminal: 'lobby', device: 'advsim0001', biometricCode: '1023', logTime: at(1) },
        { terminal: 'lobby', device: 'advsim0001', biometricCode: '1024', logTime: at(2) },
      ]);
      expect(r).toMatchObject({ added: 1, duplicates: 1 });
      expect(j.queries.list({ limit: 10 }).map((p) => p.device)).toEqual(['ADVSIM0001', 'ADVSIM0001']);
      // Another device (not a case variant) is learnt as before.
      expect(j.ingest([{ terminal: 'lobby', device: 'ADVSIM0002', biometricCode: '1023', logTime: at(1) }]).added).toBe(
        1,
      );
      j.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('a journal that holds a punch twice (under the name and under the device): the copy never sent leaves the queue, kept in punches_superseded; two sent copies stay as sent', () => {
    const tmp = tempDir('punchgate-identity-');
    try {
      const j = Journal.open({ path: tmp.path('journal.db'), site: 's', mode: 'owner' });
      // As journals before this version could hold them: one punch under the terminal's name and
      // under its device (read by another name of the device).
      j.ingest([0, 1].map((m) => ({ terminal: 'gate-9', device: '', biometricCode: '8', logTime: at(m) })));
      j.ingest([0, 1].map((m) => ({ terminal: 'old-name', device: 'SN-9', biometricCode: '8', logTime: at(m) })));
      // The second pair was sent twice already.
      const ids = () => j.db.prepare(`SELECT id FROM punches WHERE log_time = ? ORDER BY id`).pluck().all(at(1));
      j.db.prepare(`UPDATE punches SET state = 'delivered', attempts = 1 WHERE log_time = ?`).run(at(1));
      const [firstName, firstDevice] = j.db
        .prepare(`SELECT id FROM punches WHERE log_time = ? ORDER BY id`)
        .pluck()
        .all(at(0)) as number[];
      // gate-9's serial is learnt.
      expect(j.ingest([{ terminal: 'gate-9', device: 'SN-9', biometricCode: '8', logTime: at(2) }]).added).toBe(1);
      const left = j.db.prepare(`SELECT id, device, state FROM punches WHERE log_time = ?`).all(at(0));
      expect(left).toEqual([{ id: firstDevice, device: 'SN-9', state: 'pending' }]);
      expect(j.db.prepare(`SELECT id, superseded_by AS by FROM punches_superseded`).all()).toEqual([
        { id: firstName, by: firstDevice },
      ]);
      expect(ids()).toHaveLength(2);
      // Pending: one copy of each punch; nothing is claimed twice.
      expect(j.claim(10).map((p) => p.id)).toEqual([firstDevice, expect.any(Number)]);
      j.close();
    } finally {
      tmp.cleanup();
    }
  });
});
