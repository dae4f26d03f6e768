import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';

/**
 * A CSV's `terminal` column files each punch under that terminal, so it deduplicates with what is
 * polled from it. A name that is no terminal of the config (a typo) would give the same punch a
 * second identity and send it twice: such a line is bad (its number, the names there are), the
 * good lines are kept, exit 65, exactly as `--terminal` refuses a name it does not know.
 */
describe('import: the CSV terminal column', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  const rows = async () =>
    (await box.cli('punches', '--json')).stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { biometricCode: string; terminal: string })
      .map((p) => `${p.biometricCode}@${p.terminal}`)
      .sort();

  it('a row with more filled cells than the header names is a bad line (a comma in an unquoted cell); a trailing comma is fine', async () => {
    box = cliSandbox({ terminals: [{ name: 'gate-2', kind: 'zk', host: '127.0.0.1', port: 4370 }] });
    const csv = box.tmp.path('cells.csv');
    writeFileSync(
      csv,
      [
        'biometriccode,logDate',
        '7001,2026-11-28 09:00:00,',
        '7002,2026-11-28 09:01:00,Smith, Jo',
        '"7003",2026-11-28 09:02:00',
      ].join('\n') + '\n',
    );
    const r = await box.cli('import', csv);
    expect(r.status, r.stderr).toBe(65);
    expect(r.stderr).toContain(
      'cells.csv:3: 4 cells, the header names 2: a comma inside a cell needs the cell in double quotes',
    );
    expect(r.stdout).toContain('cells.csv: 2 new, 0 duplicates, 1 bad');
  });

  it('names no terminal of the config: the line is bad, never filed under the typo; the punch imported once', async () => {
    box = cliSandbox({
      terminals: [
        { name: 'gate-2', kind: 'zk', host: '127.0.0.1', port: 4370 },
        { name: 'office', kind: 'biotime', baseUrl: 'http://127.0.0.1:8081', username: 'admin' },
      ],
    });
    const csv = box.tmp.path('punches.csv');
    writeFileSync(
      csv,
      [
        'biometriccode,logDate,terminal', // 1
        '7777,2026-11-28 09:00:00,gate-2', // 2 good
        '7777,2026-11-28 09:00:00,gate2', // 3 a typo: the same punch under another name
        '7778,2026-11-28 09:01:00,office', // 4 a BioTime server: which of its devices?
        '7779,2026-11-28 09:02:00,', // 5 no name: the import's own
      ].join('\n') + '\n',
    );
    const r = await box.cli('import', csv);
    expect(r.status, r.stderr).toBe(65);
    expect(r.stderr).toContain(`punches.csv:3: no terminal named "gate2" in the config`);
    expect(r.stderr).toMatch(/punches\.csv:3: .*gate-2/); // the name it may have meant
    expect(r.stderr).toContain('punches.csv:4: office is a BioTime server');
    expect(r.stdout).toContain('punches.csv: 2 new, 0 duplicates, 2 bad');
    expect(await rows()).toEqual(['7777@gate-2', '7779@import']);

    // --terminal names where every line counts: the column is not read.
    const again = await box.cli('import', '--terminal', 'gate-2', csv);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('punches.csv: 2 new, 2 duplicates, 0 bad');
    expect(await rows()).toEqual(['7777@gate-2', '7778@gate-2', '7779@gate-2', '7779@import']);
  });
});
