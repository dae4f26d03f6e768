import { describe, expect, it } from 'vitest';
import type { TerminalRecord } from '../../src/journal/types.js';
import { noteWorking } from '../../src/sources/poll-outcome.js';
import type { Logger } from '../../src/util/logger.js';

/**
 * Found by a new site admin's first day: a terminal set up with the wrong port, never reached, then
 * mended: the log said "terminal warehouse answers again after 2 min away", as if it had worked
 * before and gone away. A terminal that never answered answers for the first time.
 */
describe('a terminal that answers after failed polls', () => {
  const lines: string[] = [];
  const log = { info: (m: unknown) => lines.push(String(m)) } as unknown as Logger;
  const record = (lastSuccessAt: number | null): TerminalRecord => ({
    name: 'warehouse',
    serial: '',
    previousSerial: '',
    serialChangedAt: null,
    online: false,
    lastPollAt: 1_000,
    lastSuccessAt,
    offlineSince: 1_000,
    lastError: '127.0.0.1:24371 refused the connection',
    lastErrorFix: null,
    skewSeconds: null,
    records: null,
    users: null,
    firmware: null,
    readUpTo: null,
  });

  it('never reached before: answers for the first time, after how long of trying', () => {
    lines.length = 0;
    noteWorking(record(null), log, 'warehouse', 151_000);
    expect(lines).toEqual([
      'terminal warehouse answers for the first time, after 2 min of failed polls: its polls work',
    ]);
  });

  it('reached before, then away: answers again', () => {
    lines.length = 0;
    noteWorking(record(500), log, 'warehouse', 151_000);
    expect(lines).toEqual(['terminal warehouse answers again after 2 min away: its polls work']);
  });
});
