import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { wallClockAt } from '../../src/punch.js';
import { startHikvisionSim } from '../../src/sim/hikvision/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { parseMetrics } from '../web/helpers.js';
import { spawnDaemon, startStack, statusUrl } from './stack.js';

/**
 * The box clock may jump: a daemon whose wall clock is stepped back an hour, restored, then
 * stepped forward (libfaketime, with the monotonic clock left alone, as `date -s` does) keeps
 * polling its ZK and Hikvision terminals, delivering through an HRMS that was failing during
 * the step (the delivery backoff), and rewriting its status; it names the step as the box's, and
 * does not quarantine or blame terminals whose clocks were right all along. Terminals, HRMS and
 * test keep the real clock. Counted at the simulated HRMS.
 */
const LIBFAKETIME = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib']
  .map((d) => `${d}/faketime/libfaketime.so.1`)
  .find((p) => existsSync(p));

describe('a box clock that steps', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('polls, delivers and writes its status on through a step back and forward, names the step and blames no terminal', async () => {
    expect(LIBFAKETIME, 'libfaketime (Debian package faketime)').toBeDefined();
    const hik = await startHikvisionSim({ password: 'Right-passw0rd', utcOffset: '+00:00', serialNumber: 'DS-STEP-1' });
    cleanups.push(() => hik.stop());
    const stack = await startStack({
      delivery: { retry: { baseMs: 1000, maxMs: 3000 } },
      extraTerminals: [
        {
          name: 'reception',
          kind: 'hikvision',
          url: hik.url,
          username: 'admin',
          passwordFile: 'reception.pass',
          schedule: '* * * * * *',
          timezone: 'UTC',
          timeoutMs: 5000,
          realtime: false,
        },
      ],
    });
    cleanups.push(() => stack.stop());
    // Polled only (no real-time link): a stalled schedule shows.
    stack.writeConfig(undefined, (c) => {
      for (const t of c.terminals) if (t.kind === 'zk') (t as Record<string, unknown>).realtime = false;
    });
    writeFileSync(stack.tmp.path('reception.pass'), 'Right-passw0rd\n');
    const offset = stack.tmp.path('faketime');
    writeFileSync(offset, '+0\n');
    const env = {
      LD_PRELOAD: LIBFAKETIME!,
      FAKETIME_TIMESTAMP_FILE: offset,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      TZ: 'UTC',
    };
    const d = spawnDaemon(stack.configPath, [], env);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const zk = stack.terminals[0]!;
    const statusJson = stack.tmp.path('status.json');
    const codes = () => new Set(stack.hrms.received().map((p) => p.biometriccode));
    let n = 0;
    /** A punch on each terminal, dated by the real clock (the terminals are right). */
    const punchBoth = () => {
      n++;
      zk.addPunch({ userId: `Z${n}`, logTime: wallClockAt(Date.now(), 'UTC') });
      hik.addEvents([{ major: 5, minor: 75, employeeNoString: `H${n}` }]);
      return [`Z${n}`, `H${n}`];
    };
    const delivered = (want: string[], what: string, ms = 15_000) =>
      waitFor(
        () => want.every((c) => codes().has(c)),
        ms,
        `${what}: ${want.join(', ')} at the HRMS\n${d.output().slice(-3000)}`,
      );

    await delivered(punchBoth(), 'before any step', 30_000);

    // Step back one hour while delivery is backing off from a failing HRMS.
    stack.hrms.setFaults({ errorRate: 1 });
    const failing = punchBoth();
    await waitFor(() => stack.hrms.requests() >= 2, 15_000, 'delivery failing and backing off');
    writeFileSync(offset, '-1h\n');
    await waitFor(() => /the box clock stepped back 1 h at /.test(d.output()), 10_000, 'the step back in the log');
    const writtenAt = JSON.parse(readFileSync(statusJson, 'utf8')).generatedAt as string;
    stack.hrms.setFaults({ errorRate: 0 });
    await delivered(failing, 'the retry after the step back');
    const afterBack = punchBoth();
    await delivered(afterBack, 'polled after the step back');
    // The status goes on being written (by the box's clock, now an hour earlier).
    await waitFor(
      () => (JSON.parse(readFileSync(statusJson, 'utf8')).generatedAt as string) !== writtenAt,
      20_000,
      'the status rewritten',
    );
    // `status` on the real clock: libfaketime steps the daemon's clock, not the file times the kernel
    // stamps its status file with (a real step moves both), by which `status` judges it fresh.
    const status = await runPunchgate(['--config', stack.configPath, 'status', '--json']);
    const s = JSON.parse(status.stdout) as {
      alerts: string[];
      punches: { quarantined: number };
      boxClock?: { behindSeconds: number };
    };
    expect(
      s.alerts.some((a) => /^the box clock stepped back 1 h at /.test(a)),
      s.alerts.join('\n'),
    ).toBe(true);
    expect(s.alerts.some((a) => /the box clock is now 1 h behind where it ran/.test(a))).toBe(true);
    expect(s.alerts.filter((a) => /^terminal .*clock is|quarantined[ ,]/.test(a))).toEqual([]);
    expect(s.punches.quarantined).toBe(0);
    expect(s.boxClock?.behindSeconds).toBeGreaterThan(3500);
    // /metrics says the same, for the central side's PunchgateBoxClockStepped (issue 34).
    const metrics = parseMetrics(await (await fetch(`${await statusUrl(d)}metrics`)).text());
    expect(metrics.get('punchgate_box_clock_steps')).toBe(1);
    expect(metrics.get('punchgate_box_clock_behind_seconds')).toBeGreaterThan(3500);
    expect(metrics.get('punchgate_status_alerts')).toBeGreaterThanOrEqual(2);
    // Terminals agreeing with the box's clock before the step are not set from it.
    expect(d.output()).not.toMatch(/terminal clock set to the box clock/);

    // The clock restored, then stepped forward an hour: polls go on, nothing is quarantined.
    writeFileSync(offset, '+0\n');
    await waitFor(() => /the box clock stepped forward 1 h at /.test(d.output()), 10_000, 'the restore in the log');
    await delivered(punchBoth(), 'polled after the restore');
    writeFileSync(offset, '+1h\n');
    await waitFor(
      () => (d.output().match(/the box clock stepped forward 1 h at /g) ?? []).length >= 2,
      10_000,
      'the step forward',
    );
    await delivered(punchBoth(), 'polled after the step forward');
    const after = JSON.parse((await runPunchgate(['--config', stack.configPath, 'status', '--json'])).stdout) as {
      alerts: string[];
      punches: { quarantined: number; pending: number };
    };
    expect(after.punches.quarantined).toBe(0);
    expect(
      after.alerts.filter((a) => /^terminal .*clock is|quarantined[ ,]/.test(a)),
      after.alerts.join('\n'),
    ).toEqual([]);

    // Every punch of both terminals reached the HRMS once.
    const want = Array.from({ length: n }, (_, i) => [`Z${i + 1}`, `H${i + 1}`]).flat();
    await delivered(want, 'everything');
    const attendance = stack.hrms.attendance().map((p) => p.biometriccode);
    expect(attendance.sort()).toEqual([...want].sort());

    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  }, 120_000);
});
