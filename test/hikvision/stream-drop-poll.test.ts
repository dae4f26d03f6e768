import { afterEach, describe, expect, it } from 'vitest';
import type { HikvisionSim } from '../../src/sim/hikvision/index.js';
import { HikvisionSource } from '../../src/sources/hikvision/index.js';
import { ALERT_STREAM_PATH } from '../../src/sources/hikvision/realtime.js';
import { stallingProxy, type StallingProxy } from '../helpers/stalling-proxy.js';
import { waitFor } from '../helpers/wait.js';
import { captureLogger } from '../serial/helpers.js';
import { expectedPunches, hikConfig, journalFixture, journalKeys, passwordEnv, startSim } from './helpers.js';

/**
 * An alert stream that goes silent and then drops (a NAT or firewall that forgot the connection):
 * the passes made meanwhile never came through it. They are read by a poll at once at the drop,
 * as for the ZK real-time link (src/sources/poll-on-drop.ts), not after the reconnect's wait nor
 * at the next scheduled poll. The schedule never ticks and the reconnect waits ten minutes here:
 * only the drop's poll can read them.
 */
let sim: HikvisionSim | undefined;
let proxy: StallingProxy | undefined;
let fx: ReturnType<typeof journalFixture> | undefined;
let source: HikvisionSource | undefined;
afterEach(async () => {
  await source?.stop();
  await proxy?.stop();
  await sim?.stop();
  fx?.cleanup();
  sim = proxy = fx = source = undefined;
});

/** A schedule that never ticks: polls come from the start and from the stream only. */
const noTicks = (_spec: unknown, _tick: () => void) => () => undefined;

describe('an alert stream that drops', () => {
  it('the passes it missed before it dropped are read by a poll at once, not at the next scheduled poll', async () => {
    sim = await startSim(20, { heartbeatMs: 600_000 });
    proxy = await stallingProxy(sim.port);
    fx = journalFixture();
    const cfg = hikConfig({ url: `http://127.0.0.1:${proxy.port}` }, { realtime: true });
    const log = captureLogger('info');
    source = new HikvisionSource(
      cfg,
      { ...fx.deps, logger: log.logger },
      {
        scheduler: noTicks,
        env: passwordEnv(),
        stream: { reconnect: { baseMs: 600_000, maxMs: 600_000 } },
      },
    );
    await source.start();
    // The stream's backfill is asked for as it is said open: once that poll is done, all is read.
    await waitFor(
      () => log.entries.some((e) => /alert stream open/.test(e.msg)) && !source!.polling,
      30_000,
      'stream open, its backfill done',
    );
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
    expect(journalKeys(fx.journal)).toHaveLength(20);

    // The stream goes silent: three passes are sent on it and lost on the way.
    expect(proxy.stall(ALERT_STREAM_PATH)).toBe(1);
    const during = sim.addEvents(
      ['DURING-1', 'DURING-2', 'DURING-3'].map((employeeNoString) => ({ major: 5, minor: 75, employeeNoString })),
    );
    await waitFor(() => proxy!.lost() > 0, 10_000, 'the parts lost on the way');
    expect(journalKeys(fx.journal)).toHaveLength(20);

    // Then it drops: the poll at once reads them.
    proxy.cut();
    await waitFor(() => journalKeys(fx!.journal).length === 23, 10_000, 'the missed passes read at once');
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
    expect(during).toHaveLength(3);
    // No reconnect read them: the stream opened once (its reconnect waits ten minutes).
    expect(sim.streamsOpened()).toBe(1);
  });
});
