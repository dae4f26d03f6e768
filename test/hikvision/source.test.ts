import { afterEach, describe, expect, it } from 'vitest';
import { HikvisionSource } from '../../src/sources/hikvision/index.js';
import { DEFAULT_HIK_SERIAL, type HikvisionSim } from '../../src/sim/hikvision/index.js';
import { waitFor } from '../helpers/wait.js';
import { expectedPunches, hikConfig, journalFixture, journalKeys, passwordEnv, searches, startSim } from './helpers.js';

let sim: HikvisionSim | undefined;
let fx: ReturnType<typeof journalFixture> | undefined;
let source: HikvisionSource | undefined;
afterEach(async () => {
  await source?.stop();
  await sim?.stop();
  fx?.cleanup();
  sim = fx = source = undefined;
});

/** A schedule the test ticks by hand. */
function manualSchedule() {
  const ticks: (() => void)[] = [];
  return {
    scheduler: (_spec: unknown, tick: () => void) => (ticks.push(tick), () => undefined),
    tick: () => ticks[0]!(),
  };
}

describe('Hikvision source', () => {
  it('polls at start and on each tick, one poll at a time', async () => {
    sim = await startSim(50);
    fx = journalFixture();
    const s = manualSchedule();
    source = new HikvisionSource(hikConfig(sim), fx.deps, { scheduler: s.scheduler, env: passwordEnv() });
    await source.start();
    await waitFor(() => fx!.journal.queries.list().length === 50, 20_000, 'the first poll');
    sim.addEvents([{ major: 5, minor: 75, employeeNoString: 'TICK' }]);
    s.tick();
    s.tick(); // while the first runs: skipped
    await waitFor(() => journalKeys(fx!.journal).length === 51, 20_000, 'the ticked poll');
    expect(searches(sim).filter((c) => c.searchResultPosition === 0)).toHaveLength(2);
  });

  it('journals punches from the alert stream as they happen, and backfills by serial number after a reconnect', async () => {
    sim = await startSim(10);
    fx = journalFixture();
    const s = manualSchedule();
    source = new HikvisionSource(hikConfig(sim, { realtime: true }), fx.deps, {
      scheduler: s.scheduler,
      env: passwordEnv(),
    });
    await source.start();
    await waitFor(
      () => sim!.streams() === 1 && fx!.journal.queries.list().length === 10,
      20_000,
      'stream open, log read',
    );
    // Real time: no tick, the punch arrives through the stream (door events with it are not punches).
    sim.addEvents([
      { major: 5, minor: 38, employeeNoString: 'LIVE' },
      { major: 5, minor: 21, doorNo: 1 },
    ]);
    await waitFor(() => journalKeys(fx!.journal).some((k) => k.startsWith('LIVE@')), 20_000, 'the live punch');
    expect(fx.journal.queries.list()).toHaveLength(11);

    // The stream drops; what happens meanwhile is read by serial number: by the poll at once at the
    // drop (poll-on-drop.ts) or the backfill once the stream is back, whichever comes first.
    await waitFor(() => !source!.polling, 20_000, 'no poll running');
    // The journalled cursor: the polls read up to here (the live punches came by the stream).
    const cursor = JSON.parse(fx.journal.sourceState.get('reception', `events:${DEFAULT_HIK_SERIAL}`)!) as {
      serialNo: number;
    };
    sim.dropStreams();
    sim.addEvents([{ major: 5, minor: 75, employeeNoString: 'WHILE-DOWN' }]);
    sim.clearRequests();
    await waitFor(() => journalKeys(fx!.journal).some((k) => k.startsWith('WHILE-DOWN@')), 10_000, 'the backfill');
    await waitFor(() => sim!.requests().some((r) => r.path.endsWith('alertStream')), 10_000, 'the stream opened again');
    expect(searches(sim)[0]!.beginSerialNo).toBe(cursor.serialNo); // the last read, asked for again
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
  });

  it('journals a pass from the alert stream whose time has an offset of hours only (+05) at its wall clock', async () => {
    sim = await startSim(0, { utcOffset: '+05' });
    fx = journalFixture();
    source = new HikvisionSource(hikConfig(sim, { realtime: true }), fx.deps, {
      scheduler: manualSchedule().scheduler,
      env: passwordEnv(),
    });
    await source.start();
    await waitFor(() => sim!.streams() === 1 && !source!.polling, 20_000, 'stream open, log read');
    sim.addEvents([{ major: 5, minor: 38, employeeNoString: 'HOURS', time: '2026-11-02T08:05:00+05' }]);
    await waitFor(() => journalKeys(fx!.journal).length === 1, 20_000, 'the live punch');
    expect(journalKeys(fx.journal)).toEqual(['HOURS@2026-11-02 08:05:00']);
  });

  it('with a wrong password, the alert stream never tries it: one try per wait, from the poll only', async () => {
    sim = await startSim(0);
    fx = journalFixture();
    const s = manualSchedule();
    source = new HikvisionSource(hikConfig(sim, { realtime: true }), fx.deps, {
      scheduler: s.scheduler,
      env: passwordEnv('wrong'),
    });
    await source.start();
    await waitFor(() => sim!.auth().failures === 1 && !source!.polling, 20_000, 'the first poll refused');
    for (let i = 0; i < 5; i++) s.tick();
    await waitFor(() => !source!.polling, 20_000, 'the ticks done');
    expect(sim.auth().failures).toBe(1);
    expect(sim.requests().filter((r) => r.path.endsWith('alertStream'))).toEqual([]);
  });
});
