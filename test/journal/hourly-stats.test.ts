import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { deliveryChart, queueChart, terminalSparkline } from '../../src/web/charts.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const HOUR = 3_600_000;

/**
 * The figures per hour behind the status page's charts, from a real journal on the fake clock:
 * punches journalled per terminal, delivered and refused (counted from the journal), the queue's
 * highest size and the failed requests (sampled by the daemon); then the charts drawn from them.
 */
describe('hourly figures for the status page charts', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;
  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 0, 30, 0));
    j = Journal.open({
      path: tmp.path('journal.db'),
      site: 'plant-a',
      clock,
      mode: 'owner',
      futureToleranceMinutes: 10,
    });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('counts each hour of the last 24 on the hour it happened, and forgets what is older', () => {
    // 00:30: three punches from gate-1, one from gate-2; the queue sampled at 4; a request failed twice.
    j.ingest(['1', '2', '3'].map((c) => ({ terminal: 'gate-1', biometricCode: c, logTime: '2026-11-22 00:10:00' })));
    j.ingest([{ terminal: 'gate-2', biometricCode: '9', logTime: '2026-11-22 00:11:00' }]);
    j.hourly.record(clock.now(), { queue: 4, failedRequests: 2 });
    j.hourly.record(clock.now() + 60_000, { queue: 1, failedRequests: 1 });
    // 02:30: two delivered, one refused by the HRMS; the queue then at 1.
    clock.advance(2 * HOUR);
    const batch = j.claim(10);
    j.settle([
      { id: batch[0]!.id, kind: 'delivered' },
      { id: batch[1]!.id, kind: 'delivered' },
      { id: batch[2]!.id, kind: 'rejected', message: 'Employee not found' },
      { id: batch[3]!.id, kind: 'unknown' },
    ]);
    j.hourly.record(clock.now(), { queue: 1, failedRequests: 0 });

    const s = j.hourly.series(clock.now());
    expect(s.hours).toHaveLength(24);
    expect(s.hours.at(-1)).toBe(Date.UTC(2026, 10, 22, 2));
    const h0 = s.hours.indexOf(Date.UTC(2026, 10, 22, 0));
    const h2 = s.hours.indexOf(Date.UTC(2026, 10, 22, 2));
    expect(s.punchesByTerminal.get('gate-1')?.[h0]).toBe(3);
    expect(s.punchesByTerminal.get('gate-2')?.[h0]).toBe(1);
    expect(s.queueMax[h0]).toBe(4);
    expect(s.queueMax[h0 + 1]).toBeNull(); // no sample that hour: the daemon was off
    expect(s.queueMax[h2]).toBe(1);
    expect(s.failedRequests[h0]).toBe(3);
    expect(s.delivered[h2]).toBe(2);
    expect(s.refused[h2]).toBe(1);
    expect(s.delivered.reduce((a, b) => a + b)).toBe(2);

    // Drawn: one bar per figure, each with its hour and value in words.
    const delivery = deliveryChart(s).toString();
    expect(delivery).toContain('2 punches delivered, 1 refused by the HRMS, 3 requests failed');
    expect(delivery).toContain('<title>02:00: 2 punches delivered</title>');
    expect(delivery).toContain('<title>00:00: 3 requests failed</title>');
    expect(queueChart(s).toString()).toContain('at most 4, 1 this hour');
    expect(terminalSparkline('gate-1', s).toString()).toContain('gate-1: 3 punches journalled in the last 24 h');
    expect(delivery).not.toMatch(/<script/);

    // A day later, those hours are out of the window.
    clock.advance(24 * HOUR);
    j.hourly.record(clock.now(), { queue: 0, failedRequests: 0 });
    const later = j.hourly.series(clock.now());
    expect(later.punchesByTerminal.get('gate-1') ?? []).not.toContain(3);
    expect(later.queueMax.filter((v) => v !== null)).toEqual([0]);
    expect(later.delivered.reduce((a, b) => a + b)).toBe(0);
  });
});
