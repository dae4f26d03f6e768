import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Deliverer } from '../../src/delivery/index.js';
import type { AttendanceAnswer, AttendancePunch } from '../../src/hrms/attendance.js';
import { createLogger } from '../../src/util/logger.js';
import { fakeClock } from '../helpers/tmp.js';
import { acceptAll, ScriptedSender } from './helpers.js';
import { memoryState, MemoryQueue } from './memory-queue.js';

const defaults = parseConfig({
  site: 's',
  journal: { path: '/tmp/unused.db' },
  hrms: { baseUrl: 'http://127.0.0.1:1' },
});

/** A deliverer on `n` queued punches whose HRMS takes `msPerRequest` of the fake clock per request; its info lines. */
function rig(n: number, batchSize: number, msPerRequest: number, hrms = acceptAll) {
  const clock = fakeClock();
  const q = new MemoryQueue(clock.now);
  for (let i = 0; i < n; i++)
    q.add(
      String(1000 + (i % 9)),
      `2026-11-01 ${String(Math.floor(i / 3600)).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
    );
  const lines: { level: number; msg: string; delivered?: number }[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
  const deliverer = new Deliverer({
    queue: q,
    state: memoryState(),
    tokens: { get: () => 'tok-1234' },
    hrms: defaults.hrms!,
    delivery: { ...defaults.delivery, batchSize },
    logger,
    clock,
    sleep: async (ms) => clock.advance(ms),
    sender: new ScriptedSender([
      (b: readonly AttendancePunch[]): AttendanceAnswer => {
        clock.advance(msPerRequest);
        return hrms(b);
      },
    ]),
  });
  const info = () => lines.filter((l) => l.level === 30 && /^(delivered|sent) /.test(l.msg)).map((l) => l.msg);
  return { deliverer, info, lines, clock };
}

describe('the delivery line of the log: one per burst of batches, with its totals', () => {
  it('a backlog sent in 10 batches back to back is one line', async () => {
    const r = rig(95, 10, 100);
    const report = await r.deliverer.drain({ maxWaitMs: 60_000 });
    expect(report.delivered).toBe(95);
    expect(r.info()).toEqual(['delivered 95 punches to the HRMS, 0 pending']);
  });

  it('a long burst says how far it got once a minute; the lines add up to the backlog', async () => {
    // 20 requests of 7 s: 140 s of sending; a line once the burst's answers span a minute.
    const r = rig(1000, 50, 7000);
    await r.deliverer.drain({ maxWaitMs: 600_000 });
    const lines = r.info();
    expect(lines).toEqual([
      'delivered 500 punches to the HRMS, 500 pending',
      'delivered 500 punches to the HRMS, 0 pending',
    ]);
  });

  it('a long burst says how far it got once a minute through a step back of the box clock', async () => {
    // The minute runs on the monotonic clock: a step back of 2 h once held the line for 2 h.
    let calls = 0;
    let stepBack = () => {};
    const r = rig(1000, 50, 7000, (b) => {
      if (++calls === 3) stepBack();
      return acceptAll(b);
    });
    stepBack = () => r.clock.step(-2 * 3_600_000);
    await r.deliverer.drain({ maxWaitMs: 600_000 });
    expect(r.info()).toEqual([
      'delivered 500 punches to the HRMS, 500 pending',
      'delivered 500 punches to the HRMS, 0 pending',
    ]);
  });

  it('a backlog of 100,000 at the default batch size (500 batches of 200) is one line a minute, not 500', async () => {
    // 150 ms a request: 75 s of sending, so one line once the burst's answers span a minute, then the rest.
    const r = rig(100_000, 200, 150);
    const report = await r.deliverer.drain({ maxWaitMs: 600_000 });
    expect(report.delivered).toBe(100_000);
    expect(r.info()).toEqual([
      'delivered 80200 punches to the HRMS, 19800 pending',
      'delivered 19800 punches to the HRMS, 0 pending',
    ]);
  }, 60_000);

  it('a burst that ends on a failure has its line, before the failure is told', async () => {
    let calls = 0;
    const r = rig(100, 10, 100, (b) =>
      ++calls === 4 ? { kind: 'transient', message: 'HTTP 503', afterSending: false } : acceptAll(b),
    );
    await r.deliverer.drain({ maxWaitMs: 600_000 });
    expect(r.info()).toEqual([
      'delivered 30 punches to the HRMS, 70 pending',
      'delivered 70 punches to the HRMS, 0 pending',
    ]);
    const told = r.lines.map((l) => l.msg);
    const failure = told.findIndex((m) => m.includes('HTTP 503'));
    expect(failure).toBeGreaterThan(told.indexOf('delivered 30 punches to the HRMS, 70 pending'));
    expect(failure).toBeLessThan(told.indexOf('delivered 70 punches to the HRMS, 0 pending'));
  });
});
