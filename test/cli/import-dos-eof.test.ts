import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';

/**
 * USB exports and CSVs that DOS-era tools end with Ctrl-Z (0x1A), the DOS end-of-file mark,
 * sometimes padded with NULs or followed by line ends: the file ends there (found by a serial/USB
 * trial: the mark was one bad line and a good export ended with exit 65).
 */
describe('import: a Ctrl-Z after the last line is the end of the file', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  it('no bad line and exit 0 for a trailing Ctrl-Z (with NULs or line ends after it); one in the middle is still a bad line', async () => {
    box = cliSandbox();
    const line = (code: number) => `${code}\t2026-11-20 08:${String(code % 60).padStart(2, '0')}:00\t1\t0\t1\t0\r\n`;
    writeFileSync(box.tmp.path('a_attlog.dat'), `${line(1001)}${line(1002)}\x1a`);
    writeFileSync(
      box.tmp.path('b_attlog.dat'),
      Buffer.concat([Buffer.from(`${line(1003)}\x1a`), Buffer.alloc(300), Buffer.from('\r\n')]),
    );
    writeFileSync(box.tmp.path('c.csv'), 'biometriccode,logDate\r\n1004,2026-11-20 09:00:00\x1a\r\n\r\n');
    const names = ['a_attlog.dat', 'b_attlog.dat', 'c.csv'];
    const r = await box.cli('import', '--terminal', 'import', ...names.map((n) => box.tmp.path(n)));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('a_attlog.dat: 2 new, 0 duplicates, 0 bad');
    expect(r.stdout).toContain('b_attlog.dat: 1 new, 0 duplicates, 0 bad');
    expect(r.stdout).toContain('c.csv: 1 new, 0 duplicates, 0 bad');

    // A Ctrl-Z with lines after it is no end: that line is bad, the lines after it are read.
    writeFileSync(box.tmp.path('d_attlog.dat'), `${line(1005)}\x1a\r\n${line(1006)}`);
    const d = await box.cli('import', '--terminal', 'import', box.tmp.path('d_attlog.dat'));
    expect(d.status).toBe(65);
    expect(d.stdout).toContain('d_attlog.dat: 2 new, 0 duplicates, 1 bad');
    expect(d.stderr).toMatch(/d_attlog\.dat:2: /);
  });
});
