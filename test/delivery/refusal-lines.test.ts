import { afterEach, describe, expect, it } from 'vitest';
import { credentialWords } from '../../src/delivery/index.js';
import { createLogger } from '../../src/util/logger.js';
import { makePunches, startRig, type Rig } from './helpers.js';

/**
 * The refusal lines name the sink and the address delivery calls, as the trouble lines do
 * (deliveryTo), and a refusal of many punches names a few ids, the count, and the command that
 * lists them all: a Frappe sink refusing 200 punches once wrote 100 ids in one line.
 */
describe('the refusal lines of delivery (real simulator)', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  const captured = () => {
    const lines: { msg: string; devicelogIds?: string[]; refused?: number }[] = [];
    const logger = createLogger({
      level: 'info',
      destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
    });
    return { lines, logger, msgs: () => lines.map((l) => l.msg) };
  };
  const escaped = (url: string) => url.replace(/\/$/, '').replace(/[.?]/g, '\\$&');

  it('200 refused punches: the address, the count, 5 ids and where the rest are listed', async () => {
    // No employee and the roster consulted: every punch is an unknown code, refused one by one.
    rig = await startRig({ sim: { roster: 'employees' }, delivery: { batchSize: 200 } });
    const log = captured();
    rig.journal.ingest(makePunches(200));
    await rig.makeDeliverer({ logger: log.logger }).deliverBatch();
    const refusals = log.lines.filter((l) => / refused /.test(l.msg));
    expect(refusals).toHaveLength(1);
    const line = refusals[0]!;
    const m = new RegExp(
      `^HRMS delivery to ${escaped(rig.sim.url)}/?: HRMS refused 200 punches; they are retried on the slow schedule: (.+) and 195 more \\(punchgate punches --state rejected lists them all\\)$`,
    ).exec(line.msg);
    expect(m, line.msg).not.toBeNull();
    const shown = m![1]!.split(', ');
    expect(shown).toHaveLength(5);
    const rejected = rig.journal.queries.list().filter((p) => p.state === 'rejected');
    expect(rejected).toHaveLength(200);
    for (const id of shown) expect(rejected.map((p) => p.devicelogId)).toContain(id);
    expect(line.refused).toBe(200);
    expect(line.devicelogIds).toEqual(shown);
  });

  it('a few refused: every id, no "more"; one refused: its own sentence, both naming the address', async () => {
    rig = await startRig({ sim: { roster: 'employees' } });
    const log = captured();
    rig.journal.ingest(makePunches(3));
    await rig.makeDeliverer({ logger: log.logger }).deliverBatch();
    rig.journal.ingest(makePunches(1, { start: 3 }));
    await rig.makeDeliverer({ logger: log.logger }).deliverBatch();
    const address = escaped(rig.sim.url);
    expect(log.msgs()).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^HRMS delivery to ${address}/?: HRMS refused 3 punches; they are retried on the slow schedule: [^ ,]+, [^ ,]+, [^ ,]+$`,
        ),
      ),
    );
    expect(log.msgs()).toContainEqual(
      expect.stringMatching(
        new RegExp(`^HRMS delivery to ${address}/?: HRMS refused punch [^ ]+; it is retried on the slow schedule$`),
      ),
    );
  });

  it('a batch refused whole: the splitting line names the address too', async () => {
    rig = await startRig({ sim: { faults: { poisonCodes: ['102'] } } });
    const log = captured();
    rig.journal.ingest(makePunches(4));
    await rig.makeDeliverer({ logger: log.logger }).deliverBatch();
    const address = escaped(rig.sim.url);
    expect(log.msgs()).toContainEqual(
      expect.stringMatching(
        new RegExp(`^HRMS delivery to ${address}/?: HRMS refused the whole batch \\(.+\\); splitting it`),
      ),
    );
    expect(log.msgs()).toContainEqual(
      expect.stringMatching(new RegExp(`^HRMS delivery to ${address}/?: HRMS refused punch `)),
    );
  });

  it('another sink: its own words, its address and its own listing command', async () => {
    rig = await startRig({ sim: { roster: 'employees' } });
    const log = captured();
    rig.journal.ingest(makePunches(8));
    await rig
      .makeDeliverer({
        logger: log.logger,
        sink: 'erp',
        credential: credentialWords('frappe'),
        address: 'https://erp.example.com',
        delivery: { ...rig.config.delivery, batchSize: 8 },
      })
      .deliverBatch();
    expect(log.msgs()).toContainEqual(
      expect.stringMatching(
        /^Frappe delivery to https:\/\/erp\.example\.com: Frappe refused 8 punches; they are retried on the slow schedule: (?:[^ ,]+, ){4}[^ ,]+ and 3 more \(punchgate punches --sink erp --state rejected lists them all\)$/,
      ),
    );
  });
});
