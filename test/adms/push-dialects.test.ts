/**
 * Push firmware beyond the common case (issue 31), through the real daemon (dist/punchgate.js
 * as a child process): a terminal speaking PUSH 2.0.1 is answered in its own dialect (`Stamp=`,
 * a bit-string TransFlag, a bare `OK`), its punches reach the HRMS once and its stamp is
 * respected after it restarts; a BioFace A1-like terminal answers a users query on
 * `/iclock/querydata?...&cmdid=N` without a devicecmd result, and that settles the command.
 */
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { PushStore } from '../../src/journal/push-store.js';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { systemClock } from '../../src/util/clock.js';
import { spawnDaemon } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';

describe('push terminals in their own dialect, through punchgate run', () => {
  it('PUSH 2.0.1: answered with Stamp= and OK, every punch delivered once, its stamp kept over its restart', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'old', serial: 'OLD201X1' }] });
    const sims: PushTerminalSim[] = [];
    const lines: string[] = [];
    const start = () => {
      const sim = startPushTerminalSim({
        server: stack.url,
        serial: 'OLD201X1',
        punches: 150,
        batchSize: 40,
        delayMs: 100,
        errorDelayMs: 100,
        timeMode: 'sequence',
        sequenceStart: '2026-10-01 08:00:00',
        variant: { dialect: '2.0.1' },
        log: (l) => lines.push(l),
      });
      sims.push(sim);
      return sim;
    };
    const d = spawnDaemon(stack.configPath);
    try {
      await waitFor(() => d.output().includes('push terminal receiver listening'), 20_000, 'receiver up');
      const sim = start();
      await waitFor(() => sim.backlog() === 0, 20_000, `uploaded\n${lines.slice(-10).join('\n')}`);
      await waitFor(() => stack.hrms.attendance().length === 150, 20_000, 'delivered');
      // Every upload was answered in its dialect (a bare OK): none failed, none was sent twice.
      expect(sim.stats()).toMatchObject({ failedRequests: 0, resentAfterOk: 0, handshakes: 1 });
      expect(sim.stats().okUploads).toBe(4);
      expect(lines.filter((l) => /uploaded \d+ punches/.test(l)).every((l) => / OK$/.test(l))).toBe(true);
      // Another punch, then the terminal restarts: its handshake gets Stamp=151 and it sends nothing again.
      sim.punch();
      await waitFor(() => sim.backlog() === 0 && stack.hrms.attendance().length === 151, 20_000, 'one more');
      await sim.stop();
      const again = start();
      await waitFor(() => again.stats().handshakes === 1, 10_000, 'the restarted terminal registered');
      expect(again.stats().serverStamp).toBe('151');
      expect(again.backlog()).toBe(0);
      expect(again.stats().okUploads).toBe(0);
      expect(stack.hrms.attendance()).toHaveLength(151);
      expect(new Set(stack.hrms.attendance().map((p) => p.devicelogId)).size).toBe(151);
    } finally {
      d.child.kill('SIGTERM');
      const exit = await d.exited;
      for (const s of sims) await s.stop();
      await stack.stop();
      expect(exit, d.output().slice(-3000)).toEqual({ code: 0, signal: null });
    }
  }, 120_000);

  it('a newer terminal beside it keeps the newer dialect (ATTLOGStamp=, OK:n)', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'new', serial: 'NEW241X1' }] });
    const d = spawnDaemon(stack.configPath);
    await waitFor(() => d.output().includes('push terminal receiver listening'), 20_000, 'receiver up');
    const lines: string[] = [];
    const sim = startPushTerminalSim({
      server: stack.url,
      serial: 'NEW241X1',
      punches: 30,
      delayMs: 100,
      errorDelayMs: 100,
      timeMode: 'sequence',
      sequenceStart: '2026-10-02 08:00:00',
      log: (l) => lines.push(l),
    });
    try {
      await waitFor(() => stack.hrms.attendance().length === 30, 20_000, 'delivered');
      // Delivery may reach the HRMS before the OK reaches the terminal (the OK waits for the disk
      // sync and the file system's probe after it): its line is waited for, not assumed.
      const answered = (l: string) => /uploaded \d+ punches \(Stamp=\d+\): /.test(l);
      await waitFor(() => lines.some(answered), 20_000, `the upload's answer:\n${lines.join('\n')}`);
      expect(lines.filter(answered)).toEqual(['NEW241X1: uploaded 30 punches (Stamp=30): OK:30']);
      expect(sim.stats().failedRequests).toBe(0);
    } finally {
      d.child.kill('SIGTERM');
      await d.exited;
      await sim.stop();
      await stack.stop();
    }
  }, 60_000);

  it('a users query answered on querydata with cmdid (no devicecmd result) settles its command', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'a1', serial: 'BIOFACEA1' }] });
    // The query waits in the journal's queue (made as punchgate run makes it) until the terminal polls.
    const journal = Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-p', mode: 'owner' });
    const queued = new PushStore(journal.db, journal, systemClock).enqueue('a1', 'DATA QUERY USERINFO').command;
    journal.close();
    const sim = startPushTerminalSim({
      server: stack.url,
      serial: 'BIOFACEA1',
      users: 7,
      punches: 5,
      delayMs: 100,
      errorDelayMs: 100,
      timeMode: 'sequence',
      sequenceStart: '2026-10-03 08:00:00',
      variant: { queryDataAnswers: true },
    });
    const d = spawnDaemon(stack.configPath);
    const commandState = () => {
      const j = Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-p', mode: 'readonly' });
      try {
        return new PushStore(j.db, j, systemClock).commands('a1').find((c) => c.id === queued.id);
      } finally {
        j.close();
      }
    };
    try {
      await waitFor(() => sim.stats().lastTableAnswer === 'user=7', 20_000, 'the query answered on querydata');
      await waitFor(() => commandState()?.state === 'done', 10_000, 'the command settled');
      expect(commandState()).toMatchObject({ state: 'done', returnCode: 0 });
      expect(sim.commands().map((c) => c.command)).toEqual(['DATA QUERY USERINFO']);
      await waitFor(() => stack.hrms.attendance().length === 5, 20_000, 'punches delivered');
      // Settled: never handed out again (a sent command without a result would be after 10 minutes).
      expect(d.output()).toMatch(/command done \(answered on querydata\)/);
    } finally {
      d.child.kill('SIGTERM');
      await d.exited;
      await sim.stop();
      await stack.stop();
    }
  }, 60_000);
});
