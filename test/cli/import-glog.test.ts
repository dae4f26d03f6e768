import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';

/**
 * The USB export of ZKTeco-compatible black-and-white terminals (FK-series firmware): `GLG_001.TXT`
 * (new punches) or `AGL_001.TXT` (all of them), tab-separated under a header that names the
 * columns. Our own lines in the shapes published by projects that read such sticks (prosoft-reader's
 * docs/attendance.md and others: `No Mchn EnNo <empty> Name <empty> Mode IOMd DateTime <empty>`
 * over lines without the empty columns, `2025/12/01  07:41:00`; `No TMNo EnNo Name GMNo Mode
 * INOUT Antipass DateTime`, with a dash date; an empty Name). Each was refused line by line
 * before: the first column, the record number, was taken for the code and the second for the time.
 */
describe('import: glog USB exports (GLG_001.TXT, AGL_001.TXT)', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  const punches = async () =>
    (await box.cli('punches', '--json', '--limit', '50')).stdout
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map(
        (l) => JSON.parse(l) as { terminal: string; biometricCode: string; logTime: string; punchState: number | null },
      )
      .map((p) => [p.terminal, p.biometricCode, p.logTime, p.punchState])
      .sort((a, b) => `${a[2]}${a[1]}`.localeCompare(`${b[2]}${b[1]}`));

  it('reads GLG_001.TXT by its header: the enrolment number without its padding zeros, the time as written', async () => {
    box = cliSandbox({ terminals: [{ name: 'front-desk', kind: 'zk', host: '127.0.0.1' }] });
    const file = box.tmp.path('GLG_001.TXT');
    writeFileSync(
      file,
      [
        'No\tMchn\tEnNo\t\tName\t\tMode\tIOMd\tDateTime\t',
        '000001\t1\t000000214\tRuth Okafor   \t1\t0\t2026/11/23  07:58:12',
        '000002\t1\t000000007\tLeo Brandt    \t1\t0\t2026/11/23  08:03:40',
        '000003\t1\t000000214\tRuth Okafor   \t1\t1\t2026/11/23  17:01:05',
        // A date that cannot be: the terminal's clock, said with its line.
        '000004\t1\t000000007\tLeo Brandt    \t1\t1\t2026/11/31  17:10:00',
        // A line cut short (a stick pulled mid-write): its columns cannot be told.
        '000005\t1\t000000007',
        '000006\t1\t000001000\tMia Sato      \t3\t0\t2026/11/24  07:45:59',
        '',
      ].join('\r\n'),
    );
    const r = await box.cli('import', '--terminal', 'front-desk', file);
    expect(r.status, r.stderr).toBe(65);
    expect(r.stdout).toContain('GLG_001.TXT: 4 new, 0 duplicates, 2 bad');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /GLG_001\.TXT:5: impossible DateTime "2026\/11\/31 17:10:00": there is no day 31 in November/,
      ),
      expect.stringMatching(/GLG_001\.TXT:6: 3 columns, the header names 7 \(9 with its empty ones\)/),
    ]);
    expect(await punches()).toEqual([
      ['front-desk', '214', '2026-11-23 07:58:12', null],
      ['front-desk', '7', '2026-11-23 08:03:40', null],
      ['front-desk', '214', '2026-11-23 17:01:05', null],
      ['front-desk', '1000', '2026-11-24 07:45:59', null],
    ]);
    // The same stick again: every punch is a duplicate, none is journalled twice.
    const again = await box.cli('import', '--terminal', 'front-desk', file);
    expect(again.stdout).toContain('GLG_001.TXT: 0 new, 4 duplicates, 2 bad');
  });

  it('reads AGL_001.TXT whose lines keep the empty columns, or leave the name empty', async () => {
    box = cliSandbox({ terminals: [{ name: 'yard', kind: 'zk', host: '127.0.0.1' }] });
    const agl = box.tmp.path('AGL_001.TXT');
    writeFileSync(
      agl,
      [
        'No\tTMNo\tEnNo\t\tName\t\tGMNo\tMode\tINOUT\tAntipass\tDateTime',
        '1\t1\t00000031\t\tAda Moreau\t\t1\t1\t0\t0\t2026-11-25 06:59:01',
        '2\t1\t00000032\t\t\t\t1\t1\t0\t0\t2026-11-25 07:00:30',
        '',
      ].join('\n'),
    );
    const txt = box.tmp.path('agl_002.txt');
    writeFileSync(
      txt,
      ['No\tTMNo\tEnNo\tName\tINOUT\tMode\tDateTime', '1\t1\t50014\t\t0\t0\t2026/11/25 12:15:44', ''].join('\n'),
    );
    const r = await box.cli('import', '--terminal', 'yard', agl, txt);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('AGL_001.TXT: 2 new, 0 duplicates, 0 bad');
    expect(r.stdout).toContain('agl_002.txt: 1 new, 0 duplicates, 0 bad');
    expect(await punches()).toEqual([
      ['yard', '31', '2026-11-25 06:59:01', null],
      ['yard', '32', '2026-11-25 07:00:30', null],
      ['yard', '50014', '2026-11-25 12:15:44', null],
    ]);
  });
  it('reads an export with # notes above its header and words in its Mode and In/Out columns', async () => {
    box = cliSandbox({ terminals: [{ name: 'yard', kind: 'zk', host: '127.0.0.1' }] });
    const file = box.tmp.path('AttendLog.txt');
    writeFileSync(
      file,
      [
        '# DeviceModel = X200 Excel',
        '# DataType = AttendLog',
        'No\tTMNo\tEnNo\tName\tGMNo\tMode\tIn/Out\tAntipass\tProxyWork\tDateTime\tTR',
        '1\t1\t00000008\tNoor Haddad\t1\tFP\tDutyOn\t0\t0\t2026-11-26 08:10:09\t0',
        '2\t1\t00000008\tNoor Haddad\t1\tFP\tDutyOff\t0\t0\t2026-11-26 16:40:09\t0',
        // The last column empty, then not written at all.
        '3\t1\t00000009\tIvo Petrov\t1\tFP\tDutyOn\t0\t0\t2026-11-26 08:11:00\t',
        '4\t1\t00000009\tIvo Petrov\t1\tFP\tDutyOff\t0\t0\t2026-11-26 16:41:00',
        '',
      ].join('\r\n'),
    );
    const r = await box.cli('import', '--terminal', 'yard', file);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('AttendLog.txt: 4 new, 0 duplicates, 0 bad');
    expect(await punches()).toEqual([
      ['yard', '8', '2026-11-26 08:10:09', null],
      ['yard', '9', '2026-11-26 08:11:00', null],
      ['yard', '8', '2026-11-26 16:40:09', null],
      ['yard', '9', '2026-11-26 16:41:00', null],
    ]);
  });
});
