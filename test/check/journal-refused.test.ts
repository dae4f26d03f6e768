import { afterEach, describe, expect, it } from 'vitest';
import { checkJournal } from '../../src/check/journal-check.js';
import { Journal } from '../../src/journal/index.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * `punchgate check` with punches the HRMS refused: a warning with the way to see and retry them,
 * not PASS (a new-user trial saw "all checks passed" with 25 punches refused for unknown codes).
 */
describe('check of a journal holding refused punches', () => {
  const tmp = tempDir('punchgate-check-refused-');
  afterEach(() => tmp.cleanup());

  it('warns of refused and given-up punches, passes a queue without them', () => {
    const path = tmp.path('journal.db');
    const j = Journal.open({ path, site: 'plant-a', clock: fakeClock(), mode: 'owner', deadAfterAttempts: 1 });
    j.ingest([1, 2, 3].map((i) => ({ terminal: 'gate', biometricCode: String(i), logTime: `2026-11-22 08:0${i}:00` })));
    expect(checkJournal(path, { quick: true })).toMatchObject({ status: 'pass' });
    const [a, b] = j.claim(2);
    j.settle([
      { id: a!.id, kind: 'rejected', message: 'No employee with code 1' },
      { id: b!.id, kind: 'rejected', message: 'No employee with code 2' },
    ]);
    j.close();
    const r = checkJournal(path, { quick: true });
    expect(r.status).toBe('warn');
    expect(r.detail).toMatch(/punch(es)? (refused by the HRMS wait for a fix|given up after every attempt)/);
    expect(r.fix).toContain('punchgate punches retry');
  });
});
