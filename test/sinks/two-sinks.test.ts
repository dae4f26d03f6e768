import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startHrmsSim } from '../../src/sim/hrms/index.js';
import type { StatusReport } from '../../src/status/types.js';
import { everythingWritten, keys, punchTimes, spawnDaemon, startStack, statusUrl } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN_B = 'sink-b-token-77c1';

const metrics = async (url: string) => (await fetch(`${url}metrics`)).text();

const statusJson = (configPath: string): StatusReport =>
  JSON.parse(
    spawnSync(process.execPath, ['dist/punchgate.js', '--config', configPath, 'status', '--json'], {
      encoding: 'utf8',
    }).stdout,
  ) as StatusReport;

/**
 * Two sinks of the seed kind, each a real HRMS simulator, behind a real `punchgate run`
 * (issue 32): gate-1 delivers to both, gate-2 names sink b only. Sink b is down (every request
 * a 503) while the default sink takes every punch of gate-1; the daemon is killed (SIGKILL)
 * mid-delivery, then sink b comes back: in the end each sink holds each of its punches exactly
 * once, and the default sink none of gate-2's.
 */
describe('two sinks', () => {
  it('one down never holds up the other; after kills and its return each gets each punch once', async () => {
    const stack = await startStack({ terminals: 2, delivery: { batchSize: 10, probeIntervalMs: 200 } });
    const b = await startHrmsSim({ tokens: [TOKEN_B] });
    writeFileSync(stack.tmp.path('b-token'), `${TOKEN_B}\n`);
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, {
        sinks: [
          {
            name: 'b',
            kind: 'hrms',
            baseUrl: b.url,
            tokenFile: stack.tmp.path('b-token'),
            timeoutMs: 20_000,
            connectTimeoutMs: 5000,
          },
        ],
      });
      Object.assign(c.terminals[1]!, { sinks: ['b'] });
    });
    const [t1, t2] = stack.terminals as [(typeof stack.terminals)[0], (typeof stack.terminals)[0]];
    const time = punchTimes('2026-11-23', 7);
    const punch = (t: typeof t1, n: number) => {
      for (let i = 0; i < n; i++) t.addPunch({ userId: String(2000 + (i % 7)), logTime: time() });
    };
    b.setFaults({ errorRate: 1 });
    let d = spawnDaemon(stack.configPath);
    let text = '';
    let page = '';
    try {
      // Sink b down: the default sink takes gate-1's punches all the same, and never gate-2's.
      punch(t1, 30);
      punch(t2, 10);
      await waitFor(
        () => keys(stack.hrms.attendance()).length === 30,
        20_000,
        'gate-1 delivered to the default sink while sink b is down',
      );
      expect(keys(stack.hrms.attendance())).toEqual(keys(t1.punches()));
      expect(b.attendance()).toHaveLength(0);
      expect(b.requests()).toBeGreaterThan(0);
      // The status: a line per sink, and the sinks array of --json beside today's keys.
      await waitFor(() => statusJson(stack.configPath).sinks?.[1]?.delivery.failingSince != null, 10_000, 'b failing');
      const st = statusJson(stack.configPath);
      expect(st.punches.delivered).toBeGreaterThanOrEqual(30);
      expect(st.sinks!.map((x) => [x.name, x.kind, x.default])).toEqual([
        ['hrms', 'hrms', true],
        ['b', 'hrms', false],
      ]);
      expect(st.sinks![0]!.punches).toEqual(st.punches);
      expect(st.sinks![1]!.punches.pending + st.sinks![1]!.punches.inflight).toBe(40);
      expect(st.sinks![1]!.punches.delivered).toBe(0);
      text = spawnSync(process.execPath, ['dist/punchgate.js', '--config', stack.configPath, 'status'], {
        encoding: 'utf8',
      }).stdout;
      expect(text).toMatch(/\n {2}hrms +hrms +delivering +pending 0 /);
      expect(text).toMatch(/\n {2}b +hrms +FAILING +pending \d+/);
      // /metrics: the same metric names, a series per sink.
      const url = await statusUrl(d);
      await waitFor(
        async () => /\npunchgate_delivery_failing_since_timestamp_seconds\{sink="b"\} \d/.test(await metrics(url)),
        10_000,
        'the failing gauge of sink b',
      );
      const m = await metrics(url);
      expect(m).toMatch(/\npunchgate_hrms_requests_total\{outcome="http_error",sink="b"\} [1-9]/);
      expect(m).toMatch(/\npunchgate_hrms_requests_total\{outcome="ok",sink="hrms"\} [1-9]/);
      expect(m).toMatch(/\npunchgate_hrms_token_refused\{sink="b"\} 0/);
      expect(m).not.toMatch(/punchgate_delivery_failing_since_timestamp_seconds\{sink="hrms"\}/);
      // The page: a section for sink b with its own state and its flush command.
      page = await (await fetch(url)).text();
      expect(page).toContain('<section id="sink-b" class="sink">');
      expect(page).toMatch(/id="sink-b-state"><span class="bad">FAILING/);
      expect(page).toContain('punchgate flush --sink b');
      // Sink b is back, slowly; the daemon is killed twice while it delivers.
      b.setFaults({ errorRate: 0, latencyMs: 150 });
      punch(t1, 20);
      punch(t2, 20);
      for (let kill = 0; kill < 2; kill++) {
        await waitFor(() => b.requests() > 0 && b.received().length > kill * 10, 20_000, 'sink b receiving');
        d.child.kill('SIGKILL');
        await d.exited;
        d = spawnDaemon(stack.configPath);
      }
      b.setFaults({ latencyMs: 0 });
      const forA = keys(t1.punches());
      const forB = keys([...t1.punches(), ...t2.punches()]);
      await waitFor(
        () => keys(b.attendance()).length === forB.length && keys(stack.hrms.attendance()).length === forA.length,
        30_000,
        'every punch at each of its sinks',
      );
      expect(keys(b.attendance())).toEqual(forB);
      expect(keys(stack.hrms.attendance())).toEqual(forA);
      // Exactly once: a punch sent again after a kill is answered "already there", never recorded twice.
      expect(b.attendance()).toHaveLength(forB.length);
      expect(stack.hrms.attendance()).toHaveLength(forA.length);
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
      expect(everythingWritten(stack.tmp.path('.'), d, [text, page])).not.toContain(TOKEN_B);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await b.stop();
      await stack.stop();
    }
  }, 120_000);
});
