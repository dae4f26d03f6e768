/**
 * ZK firmware beyond the common case (issue 31), through the real daemon (dist/punchgate.js as a
 * child process) against the terminal simulator's firmware switches: old firmware's 16-byte
 * records (the in/out state in byte 8), black-and-white firmware's 8-byte records (users by
 * index), and 2025+ firmware answering CONNECT with 6001. Punches are counted at the HRMS
 * simulator; the in/out state is read from the journal (the HRMS payload does not carry it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { Database } from '../../src/journal/sqlite-driver.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimFirmware } from '../../src/sim/terminal/index.js';
import { waitFor } from '../helpers/wait.js';
import { COMM_KEY, keys, punchTimes, spawnDaemon, startStack } from './stack.js';
import { expectNoSecret } from '../helpers/secret.js';

const nextTime = punchTimes('2026-11-23', 9);

describe('punchgate run with old and new ZK firmware', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function run(firmware: SimFirmware, zk: Record<string, unknown> = {}) {
    // Polled (realtime off): the records come from the log download, in the firmware's layout.
    const stack = await startStack({ firmware, zk: { realtime: false, ...zk } });
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    return { stack, d, t: stack.terminals[0]! };
  }

  /** code@time -> punch state, from the journal the daemon wrote (after it stopped). */
  function journalStates(path: string): Map<string, number | null> {
    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare('SELECT biometric_code c, log_time t, punch_state s FROM punches').all() as {
        c: string;
        t: string;
        s: number | null;
      }[];
      return new Map(rows.map((r) => [`${r.c}@${r.t}`, r.s]));
    } finally {
      db.close();
    }
  }

  for (const [label, firmware, zk] of [
    ['16-byte records, state in byte 8 (ZKTeco layout)', { attendanceRecord: 16 }, {}],
    ['16-byte records, state in byte 9 (stateByte: 9)', { attendanceRecord: 16, stateByte: 9 }, { stateByte: 9 }],
    ['8-byte records (black-and-white firmware, users by index)', { attendanceRecord: 8 }, {}],
  ] as const) {
    it(`${label}: every punch delivered once, with its in/out state`, async () => {
      const { stack, d, t } = await run(firmware, zk);
      // Check-in, check-out, break-out, break-in, OT-in, OT-out: every state the terminal keys offer.
      const states = [0, 1, 2, 3, 4, 5, 1, 0];
      for (const state of states) t.addPunch({ userId: '1001', logTime: nextTime(), state, verifyType: 1 });
      await waitFor(
        () => stack.hrms.attendance().length === states.length,
        20_000,
        `all punches delivered\n${d.output().slice(-2000)}`,
      );
      expect(keys(stack.hrms.attendance())).toEqual(keys(t.punches()));
      d.child.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
      const journal = journalStates(stack.tmp.path('journal.db'));
      expect(t.punches().map((p) => journal.get(`${p.userId}@${p.logTime}`))).toEqual(states);
      expect(stack.hrms.attendance().length).toBe(states.length);
    });
  }

  it('2025+ firmware answering CONNECT with 6001: authenticated with the comm key, punches delivered', async () => {
    const { stack, d, t } = await run({ connectReply: 6001, connectAuth: 'accept' });
    for (let i = 0; i < 5; i++) t.addPunch({ userId: '1001', logTime: nextTime(), state: i % 2 });
    await waitFor(
      () => stack.hrms.attendance().length === 5,
      20_000,
      `all punches delivered\n${d.output().slice(-2000)}`,
    );
    expect(keys(stack.hrms.attendance())).toEqual(keys(t.punches()));
    expectNoSecret(d.output(), String(COMM_KEY));
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  });

  it('2025+ firmware that refuses the login after 6001: an alert naming the push route, no hang, no crash', async () => {
    const { stack, d, t } = await run({ connectReply: 6001, connectAuth: 'refuse' });
    t.addPunch({ userId: '1001', logTime: nextTime() });
    const statusJson = stack.tmp.path('status.json');
    const alerts = () =>
      existsSync(statusJson)
        ? JSON.stringify((JSON.parse(readFileSync(statusJson, 'utf8')) as { alerts?: unknown }).alerts ?? [])
        : '';
    await waitFor(
      () => /code 6001/.test(alerts()) && /kind: adms/.test(alerts()),
      20_000,
      `the alert in the status\n${alerts()}\n${d.output().slice(-2000)}`,
    );
    expect(alerts()).toMatch(/push/);
    // Still running and polling (no crash, no hang): several failed polls in the log, the process alive.
    await waitFor(() => (d.output().match(/6001/g) ?? []).length >= 1, 10_000, 'the failure logged');
    expect(d.child.exitCode).toBeNull();
    expect(stack.hrms.attendance()).toEqual([]);
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  });
});
