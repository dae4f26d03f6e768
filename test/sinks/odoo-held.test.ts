import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Deliverer } from '../../src/delivery/index.js';
import { TokenSource } from '../../src/hrms/token.js';
import { Journal } from '../../src/journal/index.js';
import type { Punch } from '../../src/punch.js';
import { holdOption } from '../../src/sinks/hold-policy.js';
import { OdooSender } from '../../src/sinks/odoo/sender.js';
import { DEFAULT_SIM_KEY, startOdooSim, type OdooSim } from '../../src/sim/odoo/index.js';
import { silentLogger } from '../../src/util/logger.js';
import { Secrets } from '../../src/util/secrets.js';
import { fakeSleep } from '../delivery/helpers.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * Odoo pairs a person's punches into records: a refused punch left out while the person's later
 * punches go on makes wrong records for good. Here the classic: Ann forgot to check out yesterday
 * (an open record), so Odoo refuses this morning's check-in; this evening's check-out must not
 * close yesterday's record (a 33-hour attendance, and this morning's check-in refused for ever as
 * overlapping it). It waits behind the refused check-in, in the same batch or a later one, until
 * the admin closes yesterday's record in Odoo; then both go in, in order.
 */
let open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of open.reverse()) await f();
  open = [];
});

async function rig(batchSize = 200) {
  const clock = fakeClock(Date.UTC(2026, 10, 5, 12, 0, 0));
  const tmp = tempDir('punchgate-odoo-held-');
  const sim: OdooSim = await startOdooSim({ employees: [{ name: 'Ann Lee', barcode: '1001' }] });
  const keyFile = tmp.path('odoo-key');
  writeFileSync(keyFile, `${DEFAULT_SIM_KEY}\n`);
  const config = parseConfig(
    {
      site: 's',
      journal: { path: tmp.path('j.db') },
      hrms: { baseUrl: sim.url, tokenFile: keyFile },
      delivery: { batchSize },
    },
    tmp.dir,
  );
  const journal = Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'owner', clock });
  const sender = new OdooSender({ baseUrl: sim.url, database: 'odoo', api: 'json2', timeoutMs: 10_000 });
  const deliverer = new Deliverer({
    queue: journal,
    state: journal.deliveryState,
    tokens: new TokenSource({ tokenFile: keyFile, secrets: new Secrets(), env: {} }),
    delivery: config.delivery,
    logger: silentLogger(),
    clock,
    sleep: fakeSleep(clock).sleep,
    sinkSender: sender,
    timezoneOf: () => 'UTC',
    directionOf: (p) => (p.punchState === 0 ? 'in' : 'out'),
    ...holdOption({ kind: 'odoo' }),
  });
  open.push(
    () => tmp.cleanup(),
    () => sim.stop(),
    () => journal.close(),
    () => sender.close(),
    () => deliverer.close(),
  );
  const ingest = (...ps: Array<[string, number]>) =>
    journal.ingest(
      ps.map(([logTime, punchState]): Punch => ({ terminal: 'gate', biometricCode: '1001', logTime, punchState })),
    );
  const records = () => sim.store.attendances.map((a) => `${a.check_in} -> ${a.check_out || 'open'}`).sort();
  return { clock, sim, journal, deliverer, ingest, records };
}

describe('Odoo: a refused punch holds the same person’s later punches', () => {
  it.each([
    ['in the same batch', true, 200],
    ['in a later batch', false, 200],
    ['in the batch claimed ahead while the refused one was out', true, 1],
  ])('a check-out waits behind a refused check-in (%s)', async (_name, together, batchSize) => {
    const r = await rig(batchSize);
    r.ingest(['2026-11-03 08:00:00', 0]);
    await r.deliverer.deliverBatch();
    expect(r.records()).toEqual(['2026-11-03 08:00:00 -> open']); // forgot to check out

    r.ingest(['2026-11-04 08:00:00', 0]);
    if (together) r.ingest(['2026-11-04 17:00:00', 1]);
    await r.deliverer.deliverBatch();
    if (!together) {
      r.ingest(['2026-11-04 17:00:00', 1]);
      await r.deliverer.deliverBatch();
    }
    await r.deliverer.deliverBatch();
    // Yesterday's open record is not closed by this evening's check-out: it waits.
    expect(r.records()).toEqual(['2026-11-03 08:00:00 -> open']);
    const c = r.journal.queries.counts();
    expect([c.delivered, c.rejected, c.pending]).toEqual([1, 1, 1]);

    // The admin closes yesterday's record in Odoo; the refused check-in's retry comes.
    r.sim.store.attendances[0]!.check_out = '2026-11-03 17:00:00';
    r.clock.advance(2 * 3600_000);
    for (let i = 0; i < 4; i++) await r.deliverer.deliverBatch();
    expect(r.records()).toEqual([
      '2026-11-03 08:00:00 -> 2026-11-03 17:00:00',
      '2026-11-04 08:00:00 -> 2026-11-04 17:00:00',
    ]);
    expect(r.journal.queries.counts().delivered).toBe(3);
  });

  it('the other people of the batch go on', async () => {
    const r = await rig();
    r.sim.store.addEmployee({ name: 'Bob Roy', barcode: '1002' });
    r.ingest(['2026-11-03 08:00:00', 0]);
    await r.deliverer.deliverBatch();
    r.ingest(['2026-11-04 08:00:00', 0], ['2026-11-04 17:00:00', 1]);
    r.journal.ingest([
      { terminal: 'gate', biometricCode: '1002', logTime: '2026-11-04 09:00:00', punchState: 0 },
      { terminal: 'gate', biometricCode: '1002', logTime: '2026-11-04 18:00:00', punchState: 1 },
    ]);
    await r.deliverer.deliverBatch();
    await r.deliverer.deliverBatch();
    expect(r.records()).toEqual(['2026-11-03 08:00:00 -> open', '2026-11-04 09:00:00 -> 2026-11-04 18:00:00']);
    expect(r.journal.queries.counts().pending).toBe(1);
  });

  it('a code Odoo does not know holds nothing: each of its punches is refused (and goes dead) on its own', async () => {
    const r = await rig();
    const stranger = (logTime: string, punchState: number): Punch => ({
      terminal: 'gate',
      biometricCode: '9009',
      logTime,
      punchState,
    });
    r.journal.ingest([stranger('2026-11-03 08:00:00', 0), stranger('2026-11-03 17:00:00', 1)]);
    await r.deliverer.deliverBatch();
    r.journal.ingest([stranger('2026-11-04 08:00:00', 0)]);
    await r.deliverer.deliverBatch();
    const c = r.journal.queries.counts();
    expect([c.rejected, c.pending]).toEqual([3, 0]);
    expect(r.records()).toEqual([]);
  });

  it('a code added in Odoo after its punches were refused: its next punch takes them along, in order', async () => {
    // Found by a rehearsal: the employee added, a new punch went in at once, ahead of the earlier
    // ones still waiting for their retry, and these were then refused for good ("hasn't checked out since").
    const r = await rig();
    const hire = (logTime: string, punchState: number): Punch => ({
      terminal: 'gate',
      biometricCode: '9010',
      logTime,
      punchState,
    });
    r.journal.ingest([hire('2026-11-03 08:00:00', 0), hire('2026-11-03 17:00:00', 1)]);
    await r.deliverer.deliverBatch();
    expect(r.journal.queries.counts().rejected).toBe(2);
    r.sim.store.addEmployee({ name: 'New Hire', barcode: '9010' });
    r.journal.ingest([hire('2026-11-04 08:00:00', 0)]);
    await r.deliverer.deliverBatch();
    expect(r.records()).toEqual(['2026-11-03 08:00:00 -> 2026-11-03 17:00:00', '2026-11-04 08:00:00 -> open']);
    const c = r.journal.queries.counts();
    expect([c.delivered, c.rejected, c.pending]).toEqual([3, 0, 0]);
  });
});
