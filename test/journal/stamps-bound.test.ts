import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const BOUNDS = { maxBytes: 50_000, maxAgeMs: 30 * 86_400_000 };

/**
 * A push terminal (or firmware gone wrong) that uploads a new table name with a Stamp= every
 * time: the journal keeps a stamp only for the tables whose stamp is ever told back or read
 * (ATTLOG, OPERLOG, USERINFO, ATTPHOTO), so push_stamps does not grow a row per invented name.
 */
describe('the stamps a push terminal is told back', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;
  let store: PushStore;
  const upload = (table: string, stamp: string) =>
    store.commitRecords(
      { terminal: 'lobby', serial: 'SN1', table, stamp, at: clock.now() },
      {
        kept: [{ table, reason: 'a table punchgate does not read', lines: 1, body: `x ${stamp}` }],
        keptBounds: BOUNDS,
      },
    );
  const rows = () => (j.db.prepare(`SELECT count(*) AS n FROM push_stamps`).get() as { n: number }).n;

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock();
    j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
    store = new PushStore(j.db, j, clock);
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('keeps no row per invented table name, and still the stamps that are told back', () => {
    // Photos are counted (handleCounted), and their stamp is told back in the handshake.
    store.commitRecords(
      { terminal: 'lobby', serial: 'SN1', table: 'ATTPHOTO', stamp: '17', at: clock.now() },
      { events: [{ table: 'ATTPHOTO', code: 'photo', count: 1 }] },
    );
    for (let i = 0; i < 200; i++) {
      upload(`INVENTED${i}`, String(i));
      clock.advance(60_000);
    }
    expect(rows()).toBe(1);
    expect(store.stamps('lobby', 'SN1')).toEqual({ ATTPHOTO: '17' });
  });
});
