import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { wallClockAt } from '../../src/punch.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { parseMetrics } from '../web/helpers.js';
import { spawnDaemon, startStack, statusUrl } from './stack.js';

interface Loop {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  since: string;
}

const readJson = (path: string): { eventLoop?: Loop } => {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { eventLoop?: Loop };
  } catch {
    return {};
  }
};

/**
 * Issue 35: the daemon's event-loop delay is measured and shown (p50/p99/max per status
 * interval in `status --json`, and prom-client's `nodejs_eventloop_lag_*` on /metrics), and a
 * stall over 1 s is a warning in its log. The stall here is the whole process stopped (SIGSTOP)
 * for 2 s, as a box too busy to give the daemon the CPU would: no task of the daemon's own ran
 * long, and the warning says the box did not give it the CPU. The daemon goes on delivering afterwards (counted at the HRMS).
 */
describe("the daemon's event-loop delay", () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('is in status --json and /metrics, and a stall over 1 s is a warning saying what ran', async () => {
    const stack = await startStack({ status: { intervalMs: 4000 } });
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const url = await statusUrl(d);
    const statusJson = stack.tmp.path('status.json');

    // The figures of a status interval: milliseconds, in order.
    await waitFor(
      () => readJson(statusJson).eventLoop !== undefined,
      15_000,
      `eventLoop in status.json\n${d.output()}`,
    );
    const cli = await runPunchgate(['--config', stack.configPath, 'status', '--json']);
    const loop = (JSON.parse(cli.stdout) as { eventLoop?: Loop }).eventLoop;
    expect(loop, cli.stdout.slice(0, 2000)).toBeDefined();
    expect(loop!.p50Ms).toBeGreaterThanOrEqual(0);
    expect(loop!.p50Ms).toBeLessThanOrEqual(loop!.p99Ms);
    expect(loop!.p99Ms).toBeLessThanOrEqual(loop!.maxMs);
    expect(Number.isFinite(Date.parse(loop!.since))).toBe(true);

    // prom-client's default Node metrics: the delay's percentiles and max, in seconds.
    const metrics = parseMetrics(await (await fetch(`${url}metrics`)).text());
    for (const name of [
      'nodejs_eventloop_lag_p50_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_eventloop_lag_max_seconds',
    ]) {
      const v = metrics.get(name);
      expect(v, name).toBeDefined();
      expect(v!).toBeGreaterThan(0);
    }

    // The process held for 2 s (the watch's 500 ms tick comes 1.5 to 2 s late): the next status interval's max says
    // so, and the log warns of a stall.
    // Only what it logs from here on: a loaded CI box may have held it for a second before, too.
    const before = d.output().length;
    const after = () => d.output().slice(before);
    d.child.kill('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    d.child.kill('SIGCONT');
    // Watched from the moment it goes on, and asked of the daemon (its /status.json, a report at most
    // 1 s old, as `status --json` shows it): the window with the stall stays in sight for half an
    // interval (2 s here) after it ends at least. The status log's file, written once an interval, and
    // a watch begun only after the log line could both miss it on a loaded machine (CI, 2026-11-28).
    let seen: Loop | undefined;
    const stallShown = waitFor(
      async () => {
        seen = ((await (await fetch(`${url}status.json`)).json()) as { eventLoop?: Loop }).eventLoop;
        return (seen?.maxMs ?? 0) > 1000;
      },
      20_000,
      'a status interval with the stall in its max',
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    await waitFor(
      () => /the daemon was blocked for \d+\.\d s/.test(after()),
      20_000,
      `the stall warning\n${d.output()}`,
    );
    const line = after()
      .split('\n')
      .find((l) => l.includes('the daemon was blocked for'))!;
    // Stopped, the process used no CPU meanwhile: the warning says the box held it, not its own work.
    expect(line).toMatch(/the daemon itself ran only 0\.\d s of it: the box did not give it the CPU/);
    expect(Number(/"stallMs":(\d+)/.exec(line)?.[1])).toBeGreaterThan(1000);
    const notShown = await stallShown;
    expect(notShown, `last seen: ${JSON.stringify(seen)}`).toBeUndefined();

    // And it went on: a punch after the stall reaches the HRMS.
    stack.terminals[0]!.addPunch({ userId: '1001', logTime: wallClockAt(Date.now(), 'UTC') });
    await waitFor(() => stack.hrms.received().length === 1, 15_000, `the punch at the HRMS\n${d.output()}`);
  }, 60_000);
});
