import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { startPushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { startPushStack } from '../adms/daemon-stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { expectNoSecret } from '../helpers/secret.js';
import { waitFor } from '../helpers/wait.js';
import { spawnDaemon, startStack, type DaemonProcess } from './stack.js';

interface LogLine {
  level: number;
  msg: string;
  time: unknown;
  [key: string]: unknown;
}

const INFO = 30;

/** The daemon's JSON log lines (stdout and stderr together). */
function logLines(d: DaemonProcess): LogLine[] {
  return d
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

const infoMessages = (d: DaemonProcess) =>
  logLines(d)
    .filter((l) => l.level === INFO)
    .map((l) => l.msg);

const employee = (code: string) => ({
  username: `u${code}`,
  name: `Person ${code}`,
  email: `${code}@example.com`,
  biometriccode: code,
});

describe('the log tells a site admin where each punch went (info level, plain words)', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('a poll, a real-time punch and each delivered batch, with their counts; an idle poll stays at debug', async () => {
    const known = ['1001', '1002', '1003', '1004'];
    const stack = await startStack({ hrms: { employees: known.map(employee) }, delivery: { batchSize: 100 } });
    cleanups.push(() => stack.stop());
    const t = stack.terminals[0]!;
    const time = (i: number) =>
      `2026-11-22 08:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
    // 37 on the terminal: 2 already in the journal (delivered before), 32 of known codes, 3 of codes the HRMS does not know.
    for (let i = 0; i < 34; i++) t.addPunch({ userId: known[i % known.length]!, logTime: time(i) });
    for (let i = 0; i < 3; i++) t.addPunch({ userId: `900${i}`, logTime: time(40 + i) });
    const journal = Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-t', mode: 'owner' });
    journal.ingest(
      [0, 1].map((i) => ({ terminal: 'gate-1', device: 'SN-1', biometricCode: known[i]!, logTime: time(i) })),
    );
    journal.settle(journal.claim(10).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    journal.close();

    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    await waitFor(() => stack.hrms.received().length === 35, 15_000, 'the polled punches sent');
    await waitFor(() => infoMessages(d).some((m) => /^(delivered|sent) /.test(m)), 20_000, 'the delivery line');
    const afterPoll = infoMessages(d);
    expect(afterPoll).toContain('terminal gate-1: 35 new punches (2 already journalled)');
    expect(afterPoll).toContain('sent 35 punches to the HRMS: 32 delivered, 3 refused; 0 pending');

    // A real-time punch: received, then delivered.
    t.addPunch({ userId: '1003', logTime: time(50) });
    await waitFor(() => stack.hrms.attendance().length === 33, 10_000, 'the real-time punch delivered');
    await waitFor(
      () => infoMessages(d).includes('delivered 1 punch to the HRMS, 0 pending'),
      20_000,
      'its delivery line',
    );
    expect(infoMessages(d)).toContain('terminal gate-1: received 1 punch in real time (1 new)');

    // Polls go on every second and find nothing new: not a word at info.
    const polledAt = () => {
      const s = JSON.parse(readFileSync(stack.tmp.path('status.json'), 'utf8')) as {
        terminals: { lastPollAt: string }[];
      };
      return Date.parse(s.terminals[0]!.lastPollAt);
    };
    await waitFor(() => polledAt() > 0, 20_000, 'a poll recorded');
    const since = polledAt();
    await waitFor(() => polledAt() >= since + 2000, 10_000, 'two more polls');
    const info = infoMessages(d);
    expect(info.filter((m) => /^terminal gate-1: \d+ new punch/.test(m))).toEqual([
      'terminal gate-1: 35 new punches (2 already journalled)',
    ]);
    expect(info.filter((m) => /^(delivered|sent) /.test(m))).toEqual([
      'sent 35 punches to the HRMS: 32 delivered, 3 refused; 0 pending',
      'delivered 1 punch to the HRMS, 0 pending',
    ]);
    expect(info.some((m) => m.includes('no new punches'))).toBe(false);
    // The codes are not listed at info level (the refusals themselves are warnings quoting the HRMS).
    // A code counts where it stands alone: the line's millisecond time or pid may hold "9001".
    for (const l of logLines(d).filter((x) => x.level === INFO))
      for (const code of ['9000', '9001', '9002']) expectNoSecret(JSON.stringify(l), code);
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
    // One warning for the answer's refusals (not a line each: a batch of 200 made 200 lines at
    // each retry), naming each punch by the id its listing shows (the devicelogId sent).
    const refusalLines = logLines(d).filter((l) => /^HRMS delivery to \S+: HRMS refused /.test(l.msg));
    expect(refusalLines).toHaveLength(1);
    const warned = /^HRMS delivery to \S+: HRMS refused 3 punches; they are retried on the slow schedule: (.+)$/
      .exec(refusalLines[0]!.msg)![1]!
      .split(', ')
      .sort();
    const listed = await runPunchgate(['--config', stack.configPath, 'punches', '--state', 'rejected', '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    const ids = listed.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { devicelogId: string }).devicelogId)
      .sort();
    expect(ids).toHaveLength(3);
    expect(ids.every((id) => /^plant-t-[0-9a-f]{20}$/.test(id))).toBe(true);
    expect(warned).toEqual(ids);
    const table = await runPunchgate(['--config', stack.configPath, 'punches', '--state', 'rejected']);
    for (const id of ids) expect(table.stdout).toMatch(new RegExp(`^${id}  `, 'm'));
  }, 120_000);

  // 100,000 at the fake clock's pace: test/delivery/burst-line.test.ts. Here the daemon itself, on a
  // backlog a loaded machine delivers well within a minute.
  it('a backlog of 20,000 punches (100 batches of 200) is one delivery line, not one per batch', async () => {
    const stack = await startStack({ delivery: { batchSize: 200 } });
    cleanups.push(() => stack.stop());
    const journal = Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-t', mode: 'owner' });
    const start = Date.UTC(2024, 0, 2, 6);
    for (let from = 0; from < 20_000; from += 5000)
      journal.ingest(
        Array.from({ length: 5000 }, (_, k) => ({
          terminal: 'gate-1',
          device: 'BACKLOG1',
          biometricCode: String(1000 + ((from + k) % 500)),
          logTime: new Date(start + (from + k) * 7000).toISOString().slice(0, 19).replace('T', ' '),
        })),
      );
    journal.close();
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    await waitFor(() => stack.hrms.attendance().length === 20_000, 90_000, 'the backlog delivered');
    await waitFor(() => /, 0 pending/.test(infoMessages(d).join('\n')), 10_000, 'the last delivery line');
    const lines = logLines(d).filter((l) => l.level === INFO && l.msg.startsWith('delivered '));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    // One (one a minute while a backlog lasts, should the machine be slow), never one per batch.
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(lines.reduce((n, l) => n + Number(l.delivered), 0)).toBe(20_000);
    expect(lines.at(-1)!.msg).toMatch(/^delivered [\d]+ punches to the HRMS, 0 pending$/);
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  }, 120_000);

  it('each upload of a push terminal, and its delivery', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'lobby', serial: 'LOBBY0001' }] });
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    await waitFor(() => infoMessages(d).includes('punchgate running'), 15_000, 'the daemon running');
    const lobby = startPushTerminalSim({
      server: stack.url,
      serial: 'LOBBY0001',
      punches: 12,
      delayMs: 100,
      errorDelayMs: 100,
      timeMode: 'sequence',
    });
    cleanups.push(() => lobby.stop());
    await waitFor(() => stack.hrms.attendance().length === 12, 15_000, 'the pushed punches delivered');
    await waitFor(() => infoMessages(d).some((m) => /^(delivered|sent) /.test(m)), 20_000, 'the delivery line');
    const info = infoMessages(d);
    expect(info).toContain('terminal lobby pushed 12 punches (12 new)');
    expect(info).toContain('delivered 12 punches to the HRMS, 0 pending');
    // The version is in the start line.
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    expect(logLines(d).find((l) => l.msg === 'punchgate running')).toMatchObject({ version });
  });
});
