import { describe, expect, it } from 'vitest';
import { spreadOffsetMs, type ScheduleSpec } from '../../src/sources/schedule.js';
import { ZkSource } from '../../src/sources/zk/zk-source.js';
import { journalFixture, zkConfig } from './helpers.js';

/**
 * Issue 35: 200 ZK terminals on `* * * * *` were all polled in the same second, one burst of
 * connections and journal writes a minute. Each terminal's schedule carries its own offset.
 */
describe('ZK terminals sharing a schedule are polled spread over it', () => {
  it('hands the scheduler each terminal its own offset (none for a schedule with seconds)', async () => {
    const f = journalFixture();
    try {
      const specs = new Map<string, ScheduleSpec>();
      for (const [name, schedule] of [
        ['gate-1', '* * * * *'],
        ['gate-2', '* * * * *'],
        ['fast', '*/10 * * * * *'],
      ] as const) {
        // Port 9 (discard): the poll at start fails at once; only the schedule is looked at here.
        const source = new ZkSource(zkConfig(9, { name, schedule, timeoutMs: 200 }), f.deps, {
          scheduler: (spec) => (specs.set(name, spec), () => undefined),
        });
        await source.start();
        await source.stop();
      }
      expect(specs.get('gate-1')!.offsetMs).toBe(spreadOffsetMs('gate-1', '* * * * *'));
      expect(specs.get('gate-2')!.offsetMs).toBe(spreadOffsetMs('gate-2', '* * * * *'));
      expect(specs.get('gate-1')!.offsetMs).not.toBe(specs.get('gate-2')!.offsetMs);
      expect(specs.get('fast')!.offsetMs).toBe(0);
    } finally {
      f.cleanup();
    }
  });
});
