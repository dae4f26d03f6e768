import { afterEach, describe, expect, it } from 'vitest';
import { generateRecords, startDahuaSim, type DahuaSim } from '../../src/sim/dahua/index.js';
import { DahuaSource } from '../../src/sources/dahua/index.js';
import { stallingProxy, type StallingProxy } from '../helpers/stalling-proxy.js';
import { waitFor } from '../helpers/wait.js';
import { captureLogger } from '../serial/helpers.js';
import { dahuaConfig, expectedPunches, journalFixture, journalKeys, OFFSET_MIN, PASSWORD } from './helpers.js';

/**
 * An event stream that goes silent and then drops (a NAT or firewall that forgot the connection):
 * the events of the records made meanwhile never came, so nothing woke a read of them. They are
 * read by a poll at once at the drop, as for the ZK real-time link (src/sources/poll-on-drop.ts),
 * not after the reconnect's wait nor at the next scheduled poll. The schedule never ticks and the
 * reconnect waits ten minutes here: only the drop's poll can read them.
 */
let sim: DahuaSim | undefined;
let proxy: StallingProxy | undefined;
let fx: ReturnType<typeof journalFixture> | undefined;
let source: DahuaSource | undefined;
afterEach(async () => {
  await source?.stop();
  await proxy?.stop();
  await sim?.stop();
  fx?.cleanup();
  sim = proxy = fx = source = undefined;
});

const deviceNow = () => Math.floor(Date.now() / 1000) + OFFSET_MIN * 60;
/** A schedule that never ticks: polls come from the start and from the stream only. */
const noTicks = (_spec: unknown, _tick: () => void) => () => undefined;

describe('an event stream that drops', () => {
  it('the records whose events it missed before it dropped are read by a poll at once, not at the next scheduled poll', async () => {
    sim = await startDahuaSim({
      password: PASSWORD,
      utcOffsetMinutes: OFFSET_MIN,
      records: generateRecords(20, deviceNow() - 600, 3),
    });
    proxy = await stallingProxy(sim.port);
    fx = journalFixture();
    const cfg = dahuaConfig(proxy, { realtime: true, passwordFile: fx.passwordFile });
    const log = captureLogger('info');
    source = new DahuaSource(
      cfg,
      { ...fx.deps, logger: log.logger },
      {
        scheduler: noTicks,
        stream: { retryBaseMs: 600_000, retryMaxMs: 600_000 },
      },
    );
    await source.start();
    const first = expectedPunches(sim.records());
    // The stream's backfill is asked for as it is said open: once that poll is done, all is read.
    await waitFor(
      () => log.entries.some((e) => e.msg === 'terminal front-door: event stream open') && !source!.polling,
      30_000,
      'stream open, its backfill done',
    );
    expect(journalKeys(fx.journal)).toEqual(first);

    // The stream goes silent: the events of three records are sent on it and lost on the way.
    expect(proxy.stall('eventManager.cgi?action=attach')).toBe(1);
    sim.addRecords(['DURING-1', 'DURING-2', 'DURING-3'].map((UserID) => ({ UserID })));
    await waitFor(() => proxy!.lost() > 0, 10_000, 'the events lost on the way');
    expect(journalKeys(fx.journal)).toEqual(first);

    // Then it drops: the poll at once reads them.
    proxy.cut();
    await waitFor(
      () => journalKeys(fx!.journal).length === first.length + 3,
      10_000,
      'the missed records read at once',
    );
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.records()));
    // No reconnect read them: the stream attached once (its reconnect waits ten minutes).
    expect(sim.counts().attaches).toBe(1);
  });
});

describe('an event stream waiting out its reconnect backoff', () => {
  it('is not opened again by every poll that reaches the terminal (found while testing the drop poll)', async () => {
    sim = await startDahuaSim({ password: PASSWORD, utcOffsetMinutes: OFFSET_MIN });
    proxy = await stallingProxy(sim.port);
    fx = journalFixture();
    const log = captureLogger('info');
    const cfg = dahuaConfig(proxy, { realtime: true, passwordFile: fx.passwordFile });
    source = new DahuaSource(
      cfg,
      { ...fx.deps, logger: log.logger },
      {
        scheduler: noTicks,
        stream: { retryBaseMs: 600_000, retryMaxMs: 600_000 },
      },
    );
    await source.start();
    await waitFor(
      () => log.entries.some((e) => e.msg === 'terminal front-door: event stream open') && !source!.polling,
      30_000,
      'stream open, its backfill done',
    );
    expect(proxy.stall('eventManager.cgi?action=attach')).toBe(1);
    proxy.cut();
    await waitFor(() => log.entries.some((e) => /event stream closed/.test(e.msg)), 10_000, 'the stream closed');
    await waitFor(() => !source!.polling, 10_000, 'the drop poll done');
    // Polls on a one-second schedule: each reached the terminal and opened the stream again,
    // whatever the backoff said (ten minutes here).
    for (let i = 0; i < 3; i++) expect(await source.pollNow()).toMatchObject({ ok: true, reached: true });
    expect(sim.counts().attaches).toBe(1);
  });
});
