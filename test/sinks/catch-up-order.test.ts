import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import type { Punch } from '../../src/punch.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/** `n` punches of gate-1, a second apart from 09:00 (one code each, so no two are alike). */
const backlog = (n: number): Punch[] =>
  Array.from({ length: n }, (_, i) => ({
    terminal: 'gate-1',
    biometricCode: String(1000 + i),
    logTime: `2026-11-22 ${String(9 + Math.floor(i / 3600)).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
  }));

/**
 * A sink other than the default catching up a backlog longer than one take-in (5,000 rows): it
 * must send the oldest log time first over the whole backlog, as the default sink does, not over
 * the part taken in so far (a terminal that uploads its older log late has the higher ids).
 */
describe('a second sink catching up a long backlog', () => {
  let tmp: ReturnType<typeof tempDir>;
  let j: Journal;

  beforeEach(() => {
    tmp = tempDir();
    j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', clock: fakeClock(), mode: 'owner' });
    j.useSinks({ defaultSink: 'hrms', others: ['b'] });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('sends the oldest punch first, however late it was journalled', () => {
    j.ingest(backlog(6000));
    // gate-2 was offline: its older punch arrives after the others (a higher id).
    j.ingest([{ terminal: 'gate-2', biometricCode: '77', logTime: '2026-11-22 07:00:00' }]);
    expect(j.claim(1).map((p) => p.logTime)).toEqual(['2026-11-22 07:00:00']);
    expect(
      j
        .sinkQueue('b')
        .claim(1)
        .map((p) => p.logTime),
    ).toEqual(['2026-11-22 07:00:00']);
  });
});
