import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const punch = { terminal: 'gate-1', biometricCode: '7', logTime: '2026-11-22 09:00:00' };

/**
 * A step of the box clock is no time a refused punch waited (deadAfterDays), whatever the punch
 * was doing when the clock stepped and whoever held the journal then. Found by an adversarial
 * trial: a punch in flight at a 31-day step forward, or a step while an sqlite3 shell held the
 * journal, was given up (dead) at its next refusal, two hours after its first one.
 */
describe('a box clock step and the punches the HRMS refused', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    j = Journal.open({
      path: tmp.path('journal.db'),
      site: 'plant-a',
      clock,
      mode: 'owner',
      busyTimeoutMs: 50,
      deadAfterAttempts: 100,
      deadAfterDays: 30,
    });
    j.ingest([punch]);
    const [p] = j.claim(1);
    j.settle([{ id: p!.id, kind: 'rejected', message: 'Employee not found' }]);
    clock.advance(HOUR);
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  /** The box clock steps `ms` (forward), as the daemon's watch tells the journal. */
  const step = (ms: number) => {
    clock.step(ms);
    j.clockStepped(ms);
  };

  it('does not give up a punch that was in flight when the clock stepped forward', () => {
    const [p] = j.claim(1);
    expect(p).toBeDefined();
    step(31 * DAY);
    j.settle([{ id: p!.id, kind: 'rejected', message: 'Employee not found' }]);
    expect(j.counts()).toMatchObject({ rejected: 1, dead: 0 });
  });

  it('moves the refusals once the journal is free when another process held it at the step', async () => {
    const other = new Database(tmp.path('journal.db'), { timeout: 0 });
    try {
      other.exec('BEGIN IMMEDIATE');
      // Busy: kept for later, not thrown away (the daemon swallowed the busy error).
      step(31 * DAY);
      other.exec('COMMIT');
    } finally {
      other.close();
    }
    await waitFor(() => j.keptWrites === 0, 5000, 'the kept clock-step write');
    clock.advance(HOUR);
    const [p] = j.claim(1, { ignoreBackoff: true });
    j.settle([{ id: p!.id, kind: 'rejected', message: 'Employee not found' }]);
    expect(j.counts()).toMatchObject({ rejected: 1, dead: 0 });
  });
});

describe('a box clock step and the claims of a process that is gone', () => {
  it('returns them to the queue on time after a step back (the interval runs on the monotonic clock)', async () => {
    const { crashJournal } = await import('../helpers/crash.js');
    const tmp = tempDir();
    const clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    const open = (mode: 'owner' | 'shared') =>
      Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', clock, mode, claimRecoveryMs: 30_000 });
    const j = open('owner');
    try {
      expect(j.claim(10)).toHaveLength(0);
      // A `punchgate flush` claims the punch, then is killed.
      const flush = open('shared');
      flush.ingest([punch]);
      expect(flush.claim(10)).toHaveLength(1);
      crashJournal(flush);
      clock.step(-2 * HOUR);
      clock.advance(31_000);
      expect(j.claim(10)).toHaveLength(1);
    } finally {
      j.close();
      tmp.cleanup();
    }
  });
});
