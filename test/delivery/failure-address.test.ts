import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Deliverer } from '../../src/delivery/index.js';
import { createLogger } from '../../src/util/logger.js';
import { fakeClock } from '../helpers/tmp.js';
import { makePunches, ScriptedSender, startRig, type Rig } from './helpers.js';
import { memoryState, MemoryQueue } from './memory-queue.js';

/**
 * A new-user trial: "HRMS delivery failed, will retry in 4 s: ..." did not say which address
 * delivery calls, so the admin could not tell a wrong hrms.baseUrl from an HRMS that is down.
 * The line names it as the status shows addresses (addressShown: a query, which may hold a key, is not shown).
 */
describe('the delivery failure line', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  const warnLines = () => {
    const lines: { msg: string }[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
    });
    return { lines, logger };
  };

  it('names the HRMS address (a real simulator answering 503)', async () => {
    rig = await startRig({ sim: { faults: { errorRate: 1, seed: 3 } } });
    const { lines, logger } = warnLines();
    const d = rig.makeDeliverer({ logger });
    rig.journal.ingest(makePunches(3));
    await d.drain({ maxWaitMs: 60_000 });
    const address = rig.sim.url.replace(/\/$/, '');
    expect(lines.find((l) => l.msg.startsWith('HRMS delivery'))?.msg).toMatch(
      new RegExp(`^HRMS delivery to ${address.replace(/[.]/g, '\\.')}/? failed, will retry in `),
    );
  });

  it('names it in the other lines of trouble too: a request that goes astray, an answer not usable (real simulator)', async () => {
    // A wrong attendancePath: the HRMS answers 404, a person must look.
    rig = await startRig({ hrms: { attendancePath: '/api/no-such-endpoint' } });
    const address = rig.sim.url.replace(/\/$/, '');
    const astray = warnLines();
    rig.journal.ingest(makePunches(3));
    await rig.makeDeliverer({ logger: astray.logger }).drain({ maxWaitMs: 0 });
    expect(astray.lines.map((l) => l.msg)).toContainEqual(
      expect.stringMatching(new RegExp(`^HRMS delivery to ${address.replace(/[.]/g, '\\.')}/?: request failed: `)),
    );
    await rig.close();

    // An answer for fewer punches than were sent: nothing it says is taken.
    rig = await startRig({ sim: { faults: { shortPayload: 1 } } });
    const short = warnLines();
    rig.journal.ingest(makePunches(3));
    await rig.makeDeliverer({ logger: short.logger }).deliverBatch();
    expect(short.lines.map((l) => l.msg)).toContainEqual(
      expect.stringMatching(
        new RegExp(`^HRMS delivery to ${rig.sim.url.replace(/\/$/, '').replace(/[.]/g, '\\.')}/?: answer not usable, `),
      ),
    );
  });

  it('never the query of the address, which may hold a key', async () => {
    const config = parseConfig({
      site: 's',
      journal: { path: '/tmp/unused.db' },
      hrms: { baseUrl: 'https://hr.example.com/api?access_token=k3y-in-the-query' },
    });
    const clock = fakeClock();
    const queue = new MemoryQueue(clock.now);
    queue.add('1001', '2026-11-01 08:00:00');
    const { lines, logger } = warnLines();
    const d = new Deliverer({
      queue,
      state: memoryState(),
      tokens: { get: () => 'tok-1234' },
      hrms: config.hrms!,
      delivery: config.delivery,
      logger,
      clock,
      sleep: async (ms) => clock.advance(ms),
      sender: new ScriptedSender([{ kind: 'transient', message: 'connection refused', afterSending: false }]),
    });
    await d.drain({ maxWaitMs: 10_000 });
    expect(lines.find((l) => l.msg.startsWith('HRMS delivery'))?.msg).toMatch(
      /^HRMS delivery to https:\/\/hr\.example\.com\/api\?\(not shown\) failed, will retry in \S+ \S+: connection refused/,
    );
    expect(JSON.stringify(lines)).not.toContain('k3y-in-the-query');
  });
});
