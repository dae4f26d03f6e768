import { afterEach, describe, expect, it } from 'vitest';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import { nextAuthTry } from '../../src/sources/hikvision/auth-gate.js';
import { readNotes } from '../../src/sources/hikvision/notes.js';
import { BAD_EVENT, DEFAULT_HIK_SERIAL, type HikvisionSim } from '../../src/sim/hikvision/index.js';
import {
  expectedPunches,
  hikConfig,
  journalFixture,
  journalKeys,
  openClient,
  passwordEnv,
  searches,
  startSim,
} from './helpers.js';

/**
 * Hostile and faulty Hikvision devices against the real poll: every conversation ends within its
 * bounds, what was read before stands, the next passes keep coming, and the device is named in a
 * note the status raises as an alert (notes.ts).
 */
let sim: HikvisionSim | undefined;
let fx: ReturnType<typeof journalFixture> | undefined;
const pollers: HikvisionPoller[] = [];
afterEach(async () => {
  for (const p of pollers.splice(0)) await p.close();
  await sim?.stop();
  fx?.cleanup();
  sim = fx = undefined;
});

function poller(s: HikvisionSim, tuning: ConstructorParameters<typeof HikvisionPoller>[4] = {}) {
  const p = new HikvisionPoller(hikConfig(s), fx!.deps, undefined, passwordEnv(), tuning);
  pollers.push(p);
  return p;
}

const notes = () =>
  Object.fromEntries(readNotes(fx!.journal.sourceState, 'reception').map((n) => [n.topic, n.message]));
const cursor = () =>
  JSON.parse(fx!.journal.sourceState.get('reception', `events:${DEFAULT_HIK_SERIAL}`) ?? '{}') as {
    serialNo?: number;
    time?: string;
  };

describe('a device that does not end its event search', () => {
  it('MORE for ever with its last page again: cut short at once, the passes read are journalled, the device named', async () => {
    sim = await startSim(100, { firmware: { searchFault: 'repeat' } });
    fx = journalFixture();
    const p = poller(sim);
    const r = await p.poll();
    const pages = Math.ceil(sim.events().length / 30);
    expect(r).toMatchObject({ ok: false, reached: true, noBackoff: false });
    expect(r.stopped).toMatch(/a page of events it had sent already|MORE past the/);
    expect(searches(sim).length).toBeLessThanOrEqual(pages + 2);
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
    expect(fx.journal.terminals.get('reception')).toMatchObject({ online: true, lastError: r.stopped });
    expect(notes().poll).toMatch(/^a poll ended early: .*restart the terminal/);
    // Nothing new: the device answers NO MATCH, the poll ends, the note goes.
    const again = await p.poll();
    expect(again).toMatchObject({ ok: true, added: 0 });
    expect(notes().poll).toBeUndefined();
  });

  it('MORE for ever with new events and a total that keeps growing: stopped at the page limit, no more', async () => {
    sim = await startSim(10, { firmware: { searchFault: 'fresh' } });
    fx = journalFixture();
    const r = await poller(sim, { maxPages: 40 }).poll();
    expect(r).toMatchObject({ ok: false, noBackoff: true, pages: 40 });
    expect(r.stopped).toMatch(/stopped reading after 40 pages .* page limit/);
    expect(searches(sim)).toHaveLength(40);
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
    expect(notes().poll).toMatch(/larger than one poll reads/);
  });

  it('a poll stops at its deadline, keeps what it read, and the next poll goes on from there', async () => {
    sim = await startSim(300);
    fx = journalFixture();
    const r = await poller(sim, { deadlineMs: 0 }).poll();
    expect(r).toMatchObject({ ok: false, noBackoff: true, pages: 1 });
    expect(r.stopped).toMatch(/deadline/);
    expect(cursor().serialNo).toBe(30);
    const rest = await poller(sim).poll();
    expect(rest.ok).toBe(true);
    expect(searches(sim).at(-1)).toMatchObject({ beginSerialNo: 30 }); // event 30 asked for again
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
  });

  it('a page of 15 MB is refused after 2 MB, not buffered: the device is named, nothing is lost', async () => {
    sim = await startSim(20, { firmware: { searchFault: 'huge', hugePageBytes: 15 * 1024 * 1024 } });
    fx = journalFixture();
    const r = await poller(sim).poll();
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/sent an answer of more than 2048 kB to \/ISAPI\/AccessControl\/AcsEvent/);
    expect(notes().poll).toMatch(/more than 2048 kB.*restart the terminal/);
    // The device is mended: everything is read.
    sim.setFirmware({ searchFault: null });
    expect(await poller(sim).poll()).toMatchObject({ ok: true, added: 20 });
  });
});

describe('a device whose user search does not end', () => {
  it('MORE for ever with the same page, claiming 30 rows and sending 1: refused after two requests', async () => {
    sim = await startSim(0, {
      users: Array.from({ length: 5 }, (_, i) => ({ employeeNo: `E${i}`, name: `N${i}` })),
      firmware: { endlessUserSearch: true },
    });
    const client = await openClient(sim);
    try {
      await expect(client.users.list()).rejects.toThrow(/sent a page it had sent already/);
      expect(sim.requests().filter((q) => q.path.endsWith('/UserInfo/Search') && q.auth === 'ok')).toHaveLength(2);
    } finally {
      await client.http.close();
    }
  });
});

describe('one bad event cannot blind the source', () => {
  it('an event numbered 2,999,999,999 and dated 2037: quarantined, the cursor stays, the next six passes are read', async () => {
    sim = await startSim(20);
    fx = journalFixture();
    const p = poller(sim);
    await p.poll();
    const before = cursor().serialNo!;
    sim.addEvents([{ ...BAD_EVENT, time: `${BAD_EVENT.time}+05:30` }]);
    const r1 = await p.poll();
    expect(r1).toMatchObject({ ok: true, implausible: 1, quarantined: 1, added: 0 });
    expect(cursor().serialNo).toBe(before);
    expect(cursor().time! < '2037').toBe(true);
    expect(notes().events).toMatch(/^1 event numbered or dated implausibly \(event 2999999999 of 2037-06-01 08:00:00/);
    const six = Array.from({ length: 6 }, (_, i) => ({ major: 5, minor: 75, employeeNoString: `AFTER${i}` }));
    sim.addEvents(six);
    const r2 = await p.poll();
    expect(r2).toMatchObject({ ok: true, added: 6 });
    expect(cursor().serialNo).toBe(before + 6);
    expect(journalKeys(fx.journal).filter((k) => k.startsWith('AFTER'))).toHaveLength(6);
    // The bad pass is kept, quarantined, never pending.
    expect(
      fx.journal.queries
        .list()
        .filter((x) => x.logTime.startsWith('2037'))
        .map((x) => x.state),
    ).toEqual(['quarantined']);
  });

  it('a jump in the numbering that the next events carry on is followed', async () => {
    sim = await startSim(0);
    fx = journalFixture();
    const p = poller(sim);
    sim.addEvents([{ major: 5, minor: 75, employeeNoString: 'A' }]);
    await p.poll();
    const at = (n: number) => ({ serialNo: n, major: 5, minor: 75, employeeNoString: `J${n}` });
    sim.addEvents([at(5_000_001), at(5_000_002)]);
    expect(await p.poll()).toMatchObject({ ok: true, implausible: 2, added: 2 });
    expect(cursor().serialNo).toBe(1);
    sim.addEvents([at(5_000_003)]);
    expect(await p.poll()).toMatchObject({ ok: true, implausible: 2, added: 1, duplicates: 2 });
    expect(cursor().serialNo).toBe(5_000_003);
    sim.addEvents([at(5_000_004)]);
    expect(await p.poll()).toMatchObject({ ok: true, implausible: 0, added: 1, duplicates: 0 });
  });

  it('a cursor an older punchgate let a bad event carry away is noticed, said, and set back', async () => {
    for (const bad of [
      { serialNo: 2_999_999_999, time: '2037-06-01 08:00:00' },
      { serialNo: 2_999_999_999, time: undefined as string | undefined },
    ]) {
      sim = await startSim(20);
      fx = journalFixture();
      // The old cursor; the time is that of the newest real event when the bad one had a plausible time.
      const newest = sim.events().at(-1)!.time.slice(0, 19).replace('T', ' ');
      fx.journal.sourceState.set({
        terminal: 'reception',
        key: `events:${DEFAULT_HIK_SERIAL}`,
        value: JSON.stringify({ serialNo: bad.serialNo, time: bad.time ?? newest }),
      });
      sim.addEvents([{ major: 5, minor: 38, employeeNoString: 'NEW' }]);
      const r = await poller(sim).poll();
      expect(r.ok).toBe(true);
      expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
      expect(cursor().serialNo).toBe(sim.events().at(-1)!.serialNo);
      expect(notes().cursor).toMatch(
        /^the read position \(event 2999999999.*\) was past every event the terminal holds/,
      );
      await pollers.pop()!.close();
      await sim.stop();
      fx.cleanup();
    }
    sim = fx = undefined;
  });
});

describe('a box clock step', () => {
  it('stepped back an hour after a refused password: the wait counts from now, not from a time yet to come', () => {
    const at = Date.UTC(2026, 10, 22, 12, 0, 0);
    const refusal = { at, refusals: 1, locked: false, message: '' };
    expect(nextAuthTry(refusal, null, at + 60_000)).toBe(at + 5 * 60_000);
    const back = at - 3_600_000;
    expect(nextAuthTry(refusal, null, back)).toBe(back + 5 * 60_000);
    const locked = { ...refusal, locked: true, unlockAt: at + 30 * 60_000 };
    expect(nextAuthTry(locked, null, back)).toBe(back + 30 * 60_000);
  });
});
