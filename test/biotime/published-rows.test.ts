import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { noSerialDevice } from '../../src/sources/biotime/rows.js';
import { bioConfig, journalFixture, journalKeys, passwordEnv, startSim } from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * Transaction rows laid out as the BioTime API documentation's example answer shows them (and as
 * connectors copy it into their tests: `terminal_sn` empty, `terminal_alias`, `work_code`, `emp`
 * and `terminal` null, `punch_state` a string, `verify_type` a number, `is_attendance` 1), our own
 * codes and times, read through the real poll into a real journal.
 */
describe('BioTime rows as published', () => {
  it('rows without a terminal serial, with nulls where the documentation has them: each journalled once at its wall clock', async () => {
    const sim = await startSim(0);
    const j = journalFixture();
    cleanups.push(() => sim.stop(), j.cleanup);
    const row = (id: number, emp: string, punchTime: string, state: string) => ({
      id,
      emp_code: emp,
      punch_time: punchTime,
      punch_state: state,
      verify_type: 1,
      work_code: null,
      terminal_sn: '',
      terminal_alias: null,
      area_alias: null,
      longitude: null,
      latitude: null,
      gps_location: '',
      mobile: null,
      source: 0,
      purpose: 1,
      crc: null,
      is_attendance: 1,
      reserved: null,
      upload_time: punchTime,
      sync_status: 1,
      sync_time: null,
      emp: null,
      terminal: null,
    });
    sim.add([
      row(1, '1209', '2019-03-04 09:50:00', '0'),
      row(2, '1228', '2019-03-04 18:10:00', '1'),
      row(3, '1209', '2019-03-04 18:12:00', '255'),
    ] as never);
    const poller = new BiotimePoller(bioConfig(sim), j.deps, undefined, passwordEnv());
    cleanups.push(() => poller.destroy());
    expect(await poller.poll()).toMatchObject({ ok: true, added: 3 });
    const dev = noSerialDevice('hq');
    expect(journalKeys(j.journal)).toEqual([
      `1209@2019-03-04 09:50:00@${dev}`,
      `1209@2019-03-04 18:12:00@${dev}`,
      `1228@2019-03-04 18:10:00@${dev}`,
    ]);
    const states = j.journal.queries
      .list()
      .map((p) => p.punchState)
      .sort();
    expect(states).toEqual([0, 1, 255]);
    // The next poll asks past them: nothing again.
    expect(await poller.poll()).toMatchObject({ ok: true, added: 0 });
  });
});
