import { describe, expect, it } from 'vitest';
import { spreadOffsetMs, type ScheduleSpec } from '../../src/sources/schedule.js';
import { DahuaSource } from '../../src/sources/dahua/source.js';
import { HikvisionSource } from '../../src/sources/hikvision/source.js';
import { dahuaConfig, journalFixture as dahuaJournal } from '../dahua/helpers.js';
import { hikConfig, journalFixture as hikJournal, passwordEnv } from '../hikvision/helpers.js';

/**
 * Issue 35: terminals on `* * * * *` all polled in the same second make one burst of connections
 * and journal writes a minute. Dahua and Hikvision terminals get the same spread as ZK's
 * (test/zk-source/poll-spread.test.ts): each terminal's schedule carries its own offset.
 */
describe('Dahua and Hikvision terminals sharing a schedule are polled spread over it', () => {
  const cases = [
    ['gate-1', '* * * * *'],
    ['gate-2', '* * * * *'],
    ['fast', '*/10 * * * * *'],
  ] as const;

  const expectSpread = (specs: Map<string, ScheduleSpec>) => {
    expect(specs.get('gate-1')!.offsetMs).toBe(spreadOffsetMs('gate-1', '* * * * *'));
    expect(specs.get('gate-2')!.offsetMs).toBe(spreadOffsetMs('gate-2', '* * * * *'));
    expect(specs.get('gate-1')!.offsetMs).not.toBe(specs.get('gate-2')!.offsetMs);
    expect(specs.get('fast')!.offsetMs).toBe(0);
  };

  it('Dahua: hands the scheduler each terminal its own offset (none for a schedule with seconds)', async () => {
    const f = dahuaJournal();
    try {
      const specs = new Map<string, ScheduleSpec>();
      for (const [name, schedule] of cases) {
        // Port 9 (discard): the poll at start fails at once; only the schedule is looked at here.
        const source = new DahuaSource(
          dahuaConfig({ port: 9 }, { name, schedule, timeoutMs: 200, passwordFile: f.passwordFile }),
          f.deps,
          { scheduler: (spec) => (specs.set(name, spec), () => undefined) },
        );
        await source.start();
        await source.stop();
      }
      expectSpread(specs);
    } finally {
      f.cleanup();
    }
  });

  it('Hikvision: the same', async () => {
    const f = hikJournal();
    try {
      const specs = new Map<string, ScheduleSpec>();
      for (const [name, schedule] of cases) {
        const source = new HikvisionSource(
          hikConfig({ url: 'http://127.0.0.1:9' }, { name, schedule, timeoutMs: 200, passwordFile: f.passwordFile }),
          f.deps,
          { scheduler: (spec) => (specs.set(name, spec), () => undefined), env: passwordEnv() },
        );
        await source.start();
        await source.stop();
      }
      expectSpread(specs);
    } finally {
      f.cleanup();
    }
  });
});
