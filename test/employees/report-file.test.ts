import { lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { summarize, writeReport, type ImportReport } from '../../src/employees/report.js';
import { tempDir } from '../helpers/tmp.js';

const report: ImportReport = {
  file: 'people.csv',
  dryRun: false,
  mode: 'upsert',
  startedAt: '2026-12-01T02:00:00.000Z',
  finishedAt: '2026-12-01T02:00:01.000Z',
  exitCode: 0,
  summary: summarize([]),
  rows: [],
};

describe('employees import --report', () => {
  it('never writes through a link planted at its temporary name (root run in a folder another user writes), and keeps the report private', () => {
    const tmp = tempDir();
    try {
      const victim = tmp.path('victim');
      writeFileSync(victim, 'root-owned content\n');
      const path = tmp.path('report.json');
      // Both the old temporary name (pid-based, guessable) and the new one.
      symlinkSync(victim, `${path}.${process.pid}.tmp`);
      symlinkSync(victim, `${path}.tmp`);
      writeReport(path, report);
      expect(readFileSync(victim, 'utf8')).toBe('root-owned content\n');
      expect(lstatSync(path).isFile()).toBe(true);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ file: 'people.csv', exitCode: 0 });
      // Names and codes of people: readable by its owner only.
      expect(statSync(path).mode & 0o077).toBe(0);
    } finally {
      tmp.cleanup();
    }
  });
});
