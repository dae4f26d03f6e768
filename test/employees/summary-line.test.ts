import { describe, expect, it } from 'vitest';
import { summaryLine } from '../../src/employees/report.js';

const zero = { created: 0, updated: 0, unchanged: 0, failed: 0, invalid: 0, skipped: 0 };

describe('employees import summary line', () => {
  // A new-user trial read "1 rows: 1 created" after importing one person.
  it('says one row, and rows for any other number', () => {
    expect(summaryLine({ ...zero, rows: 1, created: 1 })).toBe(
      '1 row: 1 created, 0 updated, 0 unchanged, 0 failed, 0 invalid, 0 skipped',
    );
    expect(summaryLine({ ...zero, rows: 0 })).toMatch(/^0 rows: /);
    expect(summaryLine({ ...zero, rows: 2, invalid: 2 }, true)).toMatch(/^dry run, nothing sent: 2 rows: /);
  });
});
