import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { checkJournal } from '../../src/check/journal-check.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A journal that ran here and is gone (its disk did not come up, the file removed): punchgate run
 * refuses to start (daemon/journal-place.ts), so check says the same, not "run creates it".
 */
describe('check of a journal that ran here and is gone', () => {
  const tmp = tempDir('punchgate-check-gone-');
  afterEach(() => tmp.cleanup());

  it('FAILs with the status log that says it ran, and the ways on', () => {
    const path = tmp.path('disk/journal.db');
    writeFileSync(
      tmp.path('status.json'),
      JSON.stringify({ generatedAt: '2026-11-30T08:00:00.000Z', journal: { path }, punches: { pending: 12 } }),
    );
    for (const quick of [false, true]) {
      const r = checkJournal(path, { quick, statusPath: tmp.path('status.txt') });
      expect(r.status).toBe('fail');
      expect(r.detail).toContain(
        `its folder ${tmp.path('disk')} is gone, while the status log ${tmp.path('status.json')}`,
      );
      expect(r.detail).toContain('12 punches waiting then');
      expect(r.fix).toContain(`remove ${tmp.path('status.json')}`);
    }
    // Another journal's status log is no sign of this one: a first start makes it.
    writeFileSync(tmp.path('status.json'), JSON.stringify({ journal: { path: tmp.path('other.db') } }));
    expect(checkJournal(path, { quick: false, statusPath: tmp.path('status.txt') }).status).toBe('warn');
  });
});
