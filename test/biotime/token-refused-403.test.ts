import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { bioConfig, expectedKeys, journalFixture, journalKeys, passwordEnv, startSim } from './helpers.js';

/**
 * Django REST Framework answers a refused token 403, not 401, when the view's first authentication
 * class gives no WWW-Authenticate header (SessionAuthentication listed first: DRF's guide,
 * "Unauthorized and Forbidden responses"), with the same words: `{"detail": "Signature has
 * expired."}`. Such an expired JWT must be renewed like a 401, not kept and taken for the licence.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('BioTime token refused with 403', () => {
  it('an expired JWT answered 403 "Signature has expired." is renewed mid-poll: every page read, none twice', async () => {
    // A token expires after 3 reads, pages of 10: renewed every 3 pages.
    const sim = await startSim(200, { variant: { tokenUses: 3, refusedTokenStatus: 403 } });
    const j = journalFixture();
    cleanups.push(() => sim.stop(), j.cleanup);
    const poller = new BiotimePoller(bioConfig(sim, { pageSize: 10 }), j.deps, undefined, passwordEnv());
    cleanups.push(() => poller.destroy());
    expect(await poller.poll()).toMatchObject({ ok: true, added: 200 });
    const logins = sim.requests().filter((x) => x.path === '/jwt-api-token-auth/').length;
    expect(logins).toBeGreaterThan(2);
    expect(journalKeys(j.journal)).toEqual(expectedKeys(sim.table.all()));
  });

  it('the licence refusal (403 "You do not have permission") is still said as such, with no token asked for again', async () => {
    const sim = await startSim(20, { variant: { licenceRefuses: true, refusedTokenStatus: 403 } });
    const j = journalFixture();
    cleanups.push(() => sim.stop(), j.cleanup);
    const poller = new BiotimePoller(bioConfig(sim), j.deps, undefined, passwordEnv());
    cleanups.push(() => poller.destroy());
    const r = await poller.poll();
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/permission/);
    expect(sim.requests().filter((x) => x.path === '/jwt-api-token-auth/')).toHaveLength(1);
  });
});
