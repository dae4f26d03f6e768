import { existsSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { createPtyPair, SimLines, startSerialSim, type PtyPair } from '../../src/sim/serial/index.js';
import { SerialSource } from '../../src/sources/serial/index.js';
import { captureLogger, requireSocat, serialConfig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HOUR = 3_600_000;

async function setup() {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const journal = Journal.open({ path: dir.path('journal.db'), site: 'test', mode: 'owner' });
  cleanups.push(() => journal.close());
  const link = dir.path('ttyUSB0');
  const pairs: PtyPair[] = [];
  cleanups.push(async () => {
    for (const p of pairs) await p.close();
  });
  const plug = async () => {
    const p = await createPtyPair(link);
    pairs.push(p);
    return p;
  };
  const log = captureLogger();
  const source = new SerialSource({
    config: serialConfig({ path: link, reconnectMinMs: 50, reconnectMaxMs: 200 }),
    sink: journal,
    logger: log.logger,
    clock: { now: () => Date.now() },
    // A pty hung up in the middle of a read is noticed by the path check, not by a read error.
    presenceCheckMs: 200,
  });
  cleanups.push(() => source.stop());
  const rows = () =>
    (
      journal.db.prepare('SELECT biometric_code AS c, log_time AS t FROM punches ORDER BY id').all() as {
        c: string;
        t: string;
      }[]
    ).map((r) => `${r.c},${r.t}`);
  return { link, plug, source, rows, log };
}

describe('unplugging and replugging the adapter', () => {
  beforeAll(requireSocat);

  it('reconnects by itself, shows the gap and loses nothing from before or after', async () => {
    const { link, plug, source, rows, log } = await setup();
    const first = await plug();
    await source.start();
    expect(source.status().online).toBe(true);

    const before: string[] = [];
    await startSerialSim({
      path: first.peerPath,
      format: 'regex',
      rate: 0,
      count: 200,
      startAt: Date.now() - 2 * HOUR,
      onLine: (l) => before.push(l),
    }).done;
    await waitFor(() => source.status().accepted === 200, 10_000, 'the lines written before the unplug');

    await first.close();
    expect(existsSync(link)).toBe(false);
    await waitFor(() => !source.status().online, 10_000, 'the source to notice the unplug');
    // A few attempts fail while the adapter is away.
    await waitFor(
      () => /no such file|ENOENT|cannot open/i.test(source.status().lastError ?? ''),
      10_000,
      'a failed reopen',
    );
    const away = source.status();
    expect(away.gaps).toHaveLength(1);
    expect(away.gaps[0]?.to).toBeNull();
    expect(away.nextAttemptAt).not.toBeNull();

    const second = await plug();
    await waitFor(() => source.status().online, 20_000, 'the source to reopen the replugged device');
    const after: string[] = [];
    await startSerialSim({
      path: second.peerPath,
      format: 'regex',
      rate: 0,
      count: 200,
      startAt: Date.now() - HOUR,
      onLine: (l) => after.push(l),
    }).done;
    await waitFor(() => source.status().accepted === 400, 10_000, 'the lines written after the replug');

    expect(rows()).toEqual([...before, ...after]);
    const st = source.status();
    expect(st).toMatchObject({ online: true, reconnects: 1, accepted: 400, malformed: 0, offlineSince: null });
    expect(st.gaps).toHaveLength(1);
    const gap = st.gaps[0] as { from: number; to: number };
    expect(gap.to).toBeGreaterThan(gap.from);
    expect(log.entries.some((e) => e.msg === 'serial device lost; reconnecting')).toBe(true);
  });

  it('unplugged mid-burst: keeps a clean prefix of what was sent, never a torn line, then everything after', async () => {
    const { plug, source, rows } = await setup();
    const first = await plug();
    await source.start();
    const startAt = Date.now() - 10 * HOUR;
    const burst = startSerialSim({ path: first.peerPath, format: 'regex', rate: 0, count: 20_000, startAt });
    await waitFor(() => source.status().accepted >= 300, 10_000, 'part of the burst');
    const arrivedBeforeUnplug = source.status().accepted;
    await first.close();
    // The writer fails (EIO) once its far end is gone.
    await expect(burst.done).rejects.toThrow();
    await waitFor(() => !source.status().online, 10_000, 'the unplug');

    const second = await plug();
    await waitFor(() => source.status().online, 20_000, 'the reopen');
    const after: string[] = [];
    await startSerialSim({
      path: second.peerPath,
      format: 'regex',
      rate: 0,
      count: 50,
      startAt: Date.now() - HOUR,
      onLine: (l) => after.push(l),
    }).done;
    await waitFor(() => rows().at(-1) === after.at(-1), 10_000, 'the lines after the replug');

    const all = rows();
    const kept = all.indexOf(after[0] as string);
    expect(kept).toBeGreaterThanOrEqual(arrivedBeforeUnplug);
    // What arrived before the unplug is exactly the start of the burst: no torn or mixed line.
    const burstLines = new SimLines({ format: 'regex', count: 20_000, startAt, clock: { now: () => Date.now() } });
    const expected = Array.from({ length: kept }, () => burstLines.punch());
    expect(all.slice(0, kept)).toEqual(expected);
    expect(all.slice(kept)).toEqual(after);
    // At most the one line cut by the unplug is counted as malformed.
    expect(source.status().malformed).toBeLessThanOrEqual(1);
  });
});
