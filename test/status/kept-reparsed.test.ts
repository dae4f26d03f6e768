import { describe, expect, it } from 'vitest';
import { keptAlerts } from '../../src/status/push.js';
import type { PushKeptStatus } from '../../src/status/types.js';

/**
 * Uploads kept raw, then read again by `punchgate terminals reparse` once punchgate learnt their
 * form (found running ATTLOG lines that name their table through an older punchgate, then the
 * reparse of a newer one): every line became a punch, nothing is held and nothing was dropped.
 * The status still alerted for a day, saying "0 ATTLOG upload(s) ... all 0 were dropped to stay
 * within adms.keptUploads, none is kept" and sending the admin to raise that bound: untrue.
 */
describe('kept uploads that reparse turned into punches', () => {
  const now = Date.parse('2026-12-01T14:30:00Z');
  const base: PushKeptStatus = {
    table: 'ATTLOG',
    uploads: 2,
    lines: 42,
    held: 0,
    dropped: 0,
    droppedOld: 0,
    reparsed: 40,
    lastAt: '2026-12-01T14:22:21.000Z',
    lastReason: 'line 1: no tab between the fields',
  };

  it('no alert once every kept upload was read again and none was dropped', () => {
    expect(keptAlerts({ name: 'gate' }, [base], now)).toEqual([]);
  });

  it('still alerts while any is held, or when some were dropped, and never calls read ones dropped', () => {
    expect(keptAlerts({ name: 'gate' }, [{ ...base, held: 1 }], now)).toHaveLength(1);
    const [a] = keptAlerts({ name: 'gate' }, [{ ...base, dropped: 3 }], now);
    expect(a!.cause).toBe(
      'terminal gate: 3 ATTLOG upload(s) answered OK could not be turned into punches (last 2026-12-01 14:22:21 +00:00: line 1: no tab between the fields); 3 were dropped to stay within adms.keptUploads.maxBytes, the others were read again by punchgate terminals reparse (40 lines), none is kept',
    );
  });
});
