import { afterEach, describe, expect, it } from 'vitest';
import { startDahuaSim } from '../../src/sim/dahua/index.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import { DahuaPoller } from '../../src/sources/dahua/index.js';
import { createLogger } from '../../src/util/logger.js';
import { dahuaConfig, journalFixture, journalKeys, OFFSET_MIN, PASSWORD } from './helpers.js';

/**
 * A door opened without a person (its exit button, a remote open from the platform or an app) is
 * stored among the access records too, with neither UserID nor CardNo: Dahua's NetSDK numbers
 * such openings among the methods of the access record set (NET_ACCESS_DOOROPEN_METHOD REMOTE and
 * BUTTON, the emMethod of NET_RECORDSET_ACCESS_CTL_CARDREC). No punch, and said: but each poll
 * reads the cursor's own second again (and each page the second the one before ended on), so
 * such a record there was warned about again at every poll, a line a minute for as long as
 * the door saw no other record, and one line per record on a first read of a long log.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('Dahua records of a door opened without a person', () => {
  it('are no punch, said once per poll in one line however many, and never again for the records read before', async () => {
    const f = journalFixture();
    cleanups.push(f.cleanup);
    const lines: string[] = [];
    const deps = sourceDepsFor(f.journal, createLogger({ destination: { write: (s: string) => void lines.push(s) } }), {
      now: () => Date.now(),
    });
    const now = Math.floor(Date.now() / 1000) + OFFSET_MIN * 60;
    const nobody = { UserID: '', CardNo: '', Method: 5 };
    const sim = await startDahuaSim({
      password: PASSWORD,
      utcOffsetMinutes: OFFSET_MIN,
      records: [
        { CreateTime: now - 300, UserID: '1001' },
        { CreateTime: now - 240, ...nobody },
        { CreateTime: now - 180, UserID: '1002' },
        { CreateTime: now - 120, ...nobody },
        // The newest record, at the cursor's second: read again by every poll.
        { CreateTime: now - 60, ...nobody },
      ],
    });
    cleanups.push(() => sim.stop());
    const poller = new DahuaPoller(dahuaConfig(sim, { passwordFile: f.passwordFile }), deps);
    cleanups.push(() => poller.destroy());
    const said = () => lines.filter((l) => /without a user or (a )?card/.test(l));

    expect(await poller.poll()).toMatchObject({ ok: true, added: 2 });
    expect(said()).toHaveLength(1);
    expect(said()[0]).toContain('3 records');
    for (let i = 0; i < 3; i++) expect(await poller.poll()).toMatchObject({ ok: true, added: 0 });
    expect(said()).toHaveLength(1);

    // A new one is said (once), with a new punch beside it.
    sim.addRecords([{ UserID: '1003' }, nobody]);
    expect(await poller.poll()).toMatchObject({ ok: true, added: 1 });
    expect(await poller.poll()).toMatchObject({ ok: true, added: 0 });
    expect(said()).toHaveLength(2);
    expect(said()[1]).toContain('1 record');
    expect(journalKeys(f.journal).map((k) => k.split('@')[0])).toEqual(['1001', '1002', '1003']);
  });
});
