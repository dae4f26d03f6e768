import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { freePort } from '../../bench/lib/ports.js';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import type { ReceivedPunch } from '../../src/sim/hrms/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { COMM_KEY, punchTimes, spawnDaemon, startStack, TOKEN, type DaemonProcess } from './stack.js';
import { expectNoSecret } from '../helpers/secret.js';

/**
 * docs/backup.md, "Replacing a box", step by step with real processes: an old box (punchgate run
 * with a ZK terminal and a push terminal) delivers, is backed up (or not), and dies; a new box
 * takes over the same terminals, (a) from the old box's backup, (b) with an empty journal. The
 * HRMS recognises a resend by its devicelogId only (the strict case: a punch sent again under
 * another id would be recorded twice), or by code and time. Counted at the HRMS: every punch of
 * both terminals recorded exactly once.
 */

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type DedupBy = 'devicelogId' | 'code-time';

async function site(dedupBy: DedupBy) {
  const stack = await startStack({
    hrms: { dedupBy, roster: 'off' },
    extraTerminals: [{ name: 'lobby', kind: 'adms', serial: 'LOBBY0001', timezone: 'UTC' }],
  });
  cleanups.push(() => stack.stop());
  const port = await freePort();
  // The box's address for push terminals: the new box takes over the old one's.
  const config = parse(readFileSync(stack.configPath, 'utf8')) as Record<string, unknown>;
  config.adms = { listen: `127.0.0.1:${port}`, delay: 1, errorDelay: 1 };
  const zk = stack.terminals[0]!;
  const zkTime = punchTimes('2026-11-19', 9);
  const lobby: PushTerminalSim = startPushTerminalSim({
    server: `http://127.0.0.1:${port}`,
    serial: 'LOBBY0001',
    users: 5,
    timeMode: 'sequence',
    sequenceStart: '2026-11-18 06:00:00',
    delayMs: 200,
    errorDelayMs: 200,
  });
  cleanups.push(() => lobby.stop());

  /** A box: its own folder and journal, the same config (site, terminals, HRMS, token). */
  const box = (name: string) => {
    const dir = stack.tmp.path(name);
    mkdirSync(dir);
    const path = `${dir}/punchgate.yaml`;
    writeFileSync(path, stringify({ ...config, journal: { path: `${dir}/journal.db` } }));
    let daemon: DaemonProcess | undefined;
    return {
      dir,
      config: path,
      cli: (...args: string[]) => runPunchgate(['--config', path, ...args], { timeoutMs: 60_000 }),
      start() {
        daemon = spawnDaemon(path);
        cleanups.push(() => daemon?.child.exitCode === null && daemon.child.kill('SIGKILL'));
        return daemon;
      },
      /** The box dies: no clean stop. */
      async die() {
        daemon!.child.kill('SIGKILL');
        await daemon!.exited;
      },
    };
  };

  /** Every punch on both terminals, as code@time. */
  const onTerminals = () =>
    [
      ...zk.punches().map((p) => `${p.userId}@${p.logTime}`),
      ...lobby.records().map((r) => `${r.pin}@${r.logTime}`),
    ].sort();
  const recorded = () => stack.hrms.attendance().map((p: ReceivedPunch) => `${p.biometriccode}@${p.logDate}`);
  const allRecorded = async (what: string) => {
    await waitFor(() => recorded().length >= onTerminals().length, 30_000, what);
    // Give a resend under another id the time to arrive, then count again.
    await new Promise((r) => setTimeout(r, 1500));
    expect(recorded().sort()).toEqual(onTerminals());
  };
  const punch = (n: number) => {
    for (let i = 0; i < n; i++) zk.addPunch({ userId: String(1001 + (i % 4)), logTime: zkTime() });
    lobby.addPunches(n);
  };
  return { stack, zk, lobby, box, punch, allRecorded, recorded };
}

describe('replacing a box (docs/backup.md), with real processes', () => {
  it('(a) the old box backed up while it runs; the new box restores the backup and reads the same terminals', async () => {
    const s = await site('devicelogId');
    const old = s.box('old');
    const d = old.start();
    s.punch(10);
    await s.allRecorded('the old box delivering');
    // The nightly backup, while the old box runs.
    const backup = await old.cli('backup', `${old.dir}/nightly.db`);
    expect(backup.status, backup.stderr).toBe(0);
    // After the backup the old box delivers more, then journals some it cannot deliver (the HRMS
    // is down), then dies: those are in no backup, only on the terminals.
    s.punch(6);
    await s.allRecorded('the old box delivering after the backup');
    s.stack.hrms.setFaults({ errorRate: 1 });
    s.punch(4);
    await waitFor(() => d.output().includes('"terminal gate-1'), 10_000, 'the old box reading the last punches');
    await new Promise((r) => setTimeout(r, 1500));
    await old.die();
    s.stack.hrms.setFaults({ errorRate: 0 });
    // The backup holds no secret: neither the HRMS token nor the terminal's comm key.
    const bytes = readFileSync(`${old.dir}/nightly.db`).toString('latin1');
    expect(bytes).not.toContain(TOKEN);
    expectNoSecret(bytes, String(COMM_KEY));

    // The new box: the backup restored (copied over from the old one), then started.
    const box = s.box('new');
    const restore = await box.cli('restore', `${old.dir}/nightly.db`);
    expect(restore.status, restore.stderr).toBe(0);
    expect(restore.stdout).toContain('next: start punchgate');
    const d2 = box.start();
    s.punch(3);
    await s.allRecorded('the new box delivering what the old one left, and new punches');
    // It re-sent what the old box had delivered after the backup: the HRMS took those as resends.
    const received = s.stack.hrms.received();
    expect(received.filter((p) => p.outcome === 'duplicate').length).toBeGreaterThan(0);
    expect(received.every((p) => /^plant-t-[0-9a-f]{20}$/.test(p.devicelogId ?? ''))).toBe(true);
    d2.child.kill('SIGTERM');
    expect((await d2.exited).code).toBe(0);
    const status = await box.cli('punches', '--state', 'inflight');
    expect(status.stdout.trim()).toBe('no punches match');
  }, 120_000);

  for (const dedupBy of ['devicelogId', 'code-time'] as const) {
    it(`(b) the old box is lost with its disk; a new box with an empty journal reads the same terminals (HRMS dedup by ${dedupBy})`, async () => {
      const s = await site(dedupBy);
      const old = s.box('old');
      old.start();
      s.punch(12);
      await s.allRecorded('the old box delivering');
      await old.die();
      // Punches while no box runs: the terminals keep them.
      s.punch(3);
      const box = s.box('new');
      box.start();
      await s.allRecorded('the new box reading both terminals again');
      s.punch(2);
      await s.allRecorded('new punches through the new box');
      // The whole logs were sent again: the HRMS recognised each resend.
      expect(s.stack.hrms.received().filter((p) => p.outcome === 'duplicate').length).toBeGreaterThanOrEqual(12);
    }, 120_000);
  }
});
