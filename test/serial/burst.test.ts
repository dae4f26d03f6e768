import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { createPtyPair, startSerialSim } from '../../src/sim/serial/index.js';
import { SerialSource } from '../../src/sources/serial/index.js';
import { silentLogger } from '../../src/util/logger.js';
import { requireSocat, serialConfig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function rowCount(journal: Journal): number {
  return (journal.db.prepare('SELECT count(*) AS n FROM punches').get() as { n: number }).n;
}

describe('a burst of 10,000 lines into the real journal', () => {
  beforeAll(requireSocat);

  it('loses none: every line written is a row in the SQLite journal', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const journal = Journal.open({ path: dir.path('journal.db'), site: 'test', mode: 'owner' });
    cleanups.push(() => journal.close());
    const pair = await createPtyPair(dir.path('tty'));
    cleanups.push(() => pair.close());
    const source = new SerialSource({
      config: serialConfig({ path: pair.devicePath }),
      sink: journal,
      logger: silentLogger(),
      clock: { now: () => Date.now() },
    });
    cleanups.push(() => source.stop());
    await source.start();

    const t0 = Date.now();
    const written: string[] = [];
    const res = await startSerialSim({
      path: pair.peerPath,
      format: 'regex',
      rate: 0,
      count: 10_000,
      onLine: (l) => written.push(l),
    }).done;
    expect(res.punches).toBe(10_000);
    await waitFor(() => source.status().accepted === 10_000, 60_000, '10,000 punches in the journal');
    const elapsed = Date.now() - t0;
    expect(rowCount(journal)).toBe(10_000);
    expect(journal.counts().pending).toBe(10_000);
    const rows = journal.db.prepare('SELECT biometric_code AS c, log_time AS t FROM punches ORDER BY id').all() as {
      c: string;
      t: string;
    }[];
    expect(rows.map((r) => `${r.c},${r.t}`)).toEqual(written);
    expect(source.status()).toMatchObject({
      lines: 10_000,
      accepted: 10_000,
      duplicates: 0,
      quarantined: 0,
      malformed: 0,
    });
    console.log(`10,000 serial lines journalled in ${elapsed} ms`);
  }, 60_000);
});
