import { afterEach, describe, expect, it } from 'vitest';
import { generateRecords, startDahuaSim } from '../../src/sim/dahua/index.js';
import { DahuaPoller } from '../../src/sources/dahua/index.js';
import { dahuaConfig, expectedPunches, journalFixture, journalKeys, OFFSET_MIN, PASSWORD } from './helpers.js';

/**
 * A terminal that answers a 401 under a new Digest realm (its firmware updated, or reset: the
 * nonces it gave are gone): the poller answers the new challenge and reads on, nothing lost,
 * nothing twice, and never takes it for a refused password.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('Dahua 401 under a new realm', () => {
  it('is answered with the new challenge: the records before and after are all read once', async () => {
    const f = journalFixture();
    cleanups.push(f.cleanup);
    const now = Math.floor(Date.now() / 1000) + OFFSET_MIN * 60;
    const sim = await startDahuaSim({
      password: PASSWORD,
      utcOffsetMinutes: OFFSET_MIN,
      records: generateRecords(300, now - 600),
    });
    cleanups.push(() => sim.stop());
    const poller = new DahuaPoller(dahuaConfig(sim, { passwordFile: f.passwordFile, pageSize: 50 }), f.deps);
    cleanups.push(() => poller.destroy());
    expect(await poller.poll()).toMatchObject({ ok: true });
    sim.setRealm('Login to 7G0C1E2PAZ00001 (upgraded)');
    sim.addRecords(generateRecords(40, now - 60).map(({ CreateTime: _t, ...r }) => r));
    const r = await poller.poll();
    expect(r).toMatchObject({ ok: true });
    expect(journalKeys(f.journal)).toEqual(expectedPunches(sim.records()));
    expect(sim.auth().lockouts).toBe(0);
  });
});
