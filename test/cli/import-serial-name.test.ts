import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { attlogPunch } from '../../src/sources/import/parse.js';
import { cliSandbox } from '../helpers/cli.js';

/**
 * A terminal's USB export is named by its serial (`<serial>_attlog.dat`). Found by an adversarial
 * trial: imported without --terminal, its punches were counted under "import", a second identity
 * beside the ones the terminal had sent, and delivered again. The serial in the name now finds
 * the terminal; a serial no terminal is known by is said, and the punches counted apart.
 */
describe('import names the terminal of the serial in a USB export’s name', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  const rows = () => {
    const j = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'readonly' });
    try {
      return j.queries
        .list({ limit: 100 })
        .map((p) => `${p.terminal}/${p.device}/${p.biometricCode}`)
        .sort();
    } finally {
      j.close();
    }
  };
  const lines = (...codes: string[]) =>
    codes.map((c, i) => `${c}\t2026-11-20 08:0${i}:00\t1\t0\t0\t0`).join('\n') + '\n';

  it('a push terminal’s serial (any letter case) and a polled terminal’s known serial; the same punches are duplicates', async () => {
    box = cliSandbox({
      adms: { listen: '127.0.0.1:0' },
      terminals: [
        { name: 'lobby', kind: 'adms', serial: 'ADVSIM0005' },
        { name: 'gate-1', kind: 'zk', host: '127.0.0.1' },
      ],
    });
    const j = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    // What the terminals sent or were polled for.
    j.ingest([
      { terminal: 'lobby', device: 'ADVSIM0005', biometricCode: '1001', logTime: '2026-11-20 08:00:00' },
      { terminal: 'gate-1', device: 'BJ2C190860001', biometricCode: '2001', logTime: '2026-11-20 08:00:00' },
    ]);
    j.close();
    writeFileSync(box.tmp.path('advsim0005_attlog.dat'), lines('1001', '1002'));
    writeFileSync(box.tmp.path('BJ2C190860001_attlog.dat'), lines('2001', '2002'));
    const r = await box.cli('import', box.tmp.path('advsim0005_attlog.dat'), box.tmp.path('BJ2C190860001_attlog.dat'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("the serial advsim0005 in its name is terminal lobby's");
    expect(r.stdout).toContain('advsim0005_attlog.dat: 1 new, 1 duplicates, 0 bad');
    expect(r.stdout).toContain("the serial BJ2C190860001 in its name is terminal gate-1's");
    expect(r.stdout).toContain('BJ2C190860001_attlog.dat: 1 new, 1 duplicates, 0 bad');
    expect(rows()).toEqual([
      'gate-1/BJ2C190860001/2001',
      'gate-1/BJ2C190860001/2002',
      'lobby/ADVSIM0005/1001',
      'lobby/ADVSIM0005/1002',
    ]);
  });

  it('a replaced device’s export: filed under that device (its punches duplicates), with or without --terminal; the terminal stays its new device', async () => {
    // Found by a site admin's trial: gate-1's broken terminal was replaced by a new one (a new
    // serial at a new address); its USB export, imported as import.md says, named "no terminal of
    // the config", and its 45 punches already delivered were journalled again under "import" and
    // recorded twice by an HRMS that knows resends by devicelogId. With --terminal gate-1 they went
    // under the new device: twice as well.
    box = cliSandbox({ terminals: [{ name: 'gate-1', kind: 'zk', host: '127.0.0.1' }] });
    const j = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    j.ingest([{ terminal: 'gate-1', device: 'OLD0001', biometricCode: '2001', logTime: '2026-11-20 08:00:00' }]);
    j.terminals.update('gate-1', { serial: 'OLD0001' });
    j.ingest([{ terminal: 'gate-1', device: 'NEW0002', biometricCode: '3001', logTime: '2026-11-21 08:00:00' }]);
    j.terminals.update('gate-1', { serial: 'NEW0002', previousSerial: 'OLD0001', serialChangedAt: Date.now() });
    j.close();
    writeFileSync(box.tmp.path('OLD0001_attlog.dat'), lines('2001', '2002'));
    const r = await box.cli('import', box.tmp.path('OLD0001_attlog.dat'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "the serial OLD0001 in its name is the device terminal gate-1 was before NEW0002: its punches are counted as that device's",
    );
    expect(r.stdout).toContain('OLD0001_attlog.dat: 1 new, 1 duplicates, 0 bad');
    const again = await box.cli('import', '--terminal', 'gate-1', box.tmp.path('OLD0001_attlog.dat'));
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('OLD0001_attlog.dat: 0 new, 2 duplicates, 0 bad');
    expect(rows()).toEqual(['gate-1/NEW0002/3001', 'gate-1/OLD0001/2001', 'gate-1/OLD0001/2002']);
    const k = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'readonly' });
    try {
      expect(k.knownDevices().get('gate-1')).toBe('NEW0002');
    } finally {
      k.close();
    }
  });

  it('a stick imported apart, then again with --terminal of a terminal never reached: duplicates, not a second identity', async () => {
    // The old words after an import apart said "import it with --terminal NAME instead"; done after
    // the fact, the same punches went in again under the terminal's name, each sent twice.
    box = cliSandbox({ terminals: [{ name: 'warehouse', kind: 'zk', host: '127.0.0.1', port: 24371 }] });
    writeFileSync(box.tmp.path('A1ZK00000002_attlog.dat'), lines('2001', '2002'));
    expect((await box.cli('import', box.tmp.path('A1ZK00000002_attlog.dat'))).status).toBe(0);
    writeFileSync(box.tmp.path('A1ZK00000002_attlog.dat'), lines('2001', '2002', '2003'));
    const again = await box.cli('import', '--terminal', 'warehouse', box.tmp.path('A1ZK00000002_attlog.dat'));
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('A1ZK00000002_attlog.dat: 1 new, 2 duplicates, 0 bad');
    expect(again.stdout).toContain(
      'the serial A1ZK00000002 in its name is a device whose punches were imported before under "import": its punches are counted as that device\'s, under terminal warehouse',
    );
    expect(rows()).toEqual(['import/A1ZK00000002/2001', 'import/A1ZK00000002/2002', 'warehouse/A1ZK00000002/2003']);
    // Its first poll: every punch a duplicate; the terminal is then known as that device.
    const j = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    try {
      const polled = j.ingest(
        ['2001', '2002', '2003'].map((c, i) => ({
          terminal: 'warehouse',
          device: 'A1ZK00000002',
          biometricCode: c,
          logTime: `2026-11-20 08:0${i}:00`,
        })),
      );
      expect(polled).toMatchObject({ added: 0, duplicates: 3 });
      expect(j.knownDevices().get('warehouse')).toBe('A1ZK00000002');
    } finally {
      j.close();
    }
  });

  it('a device first imported apart, then polled as a terminal that was replaced since: its stick is still found to be that terminal’s old device', async () => {
    // The punches filed under "import" by a stick's serial are that device's; they must not hide
    // the terminal the device was (the journal's answer was any one row of the device).
    box = cliSandbox({ terminals: [{ name: 'gate-2', kind: 'zk', host: '127.0.0.1' }] });
    writeFileSync(box.tmp.path('OLD0007_attlog.dat'), lines('2001'));
    expect((await box.cli('import', box.tmp.path('OLD0007_attlog.dat'))).status).toBe(0);
    const j = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    j.ingest([{ terminal: 'gate-2', device: 'OLD0007', biometricCode: '2009', logTime: '2026-11-20 09:00:00' }]);
    j.ingest([{ terminal: 'gate-2', device: 'NEW0008', biometricCode: '3001', logTime: '2026-11-21 08:00:00' }]);
    j.close();
    writeFileSync(box.tmp.path('OLD0007_attlog.dat'), lines('2001', '2002'));
    const r = await box.cli('import', box.tmp.path('OLD0007_attlog.dat'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "the serial OLD0007 in its name is the device terminal gate-2 was before NEW0008: its punches are counted as that device's",
    );
    expect(r.stdout).toContain('OLD0007_attlog.dat: 1 new, 1 duplicates, 0 bad');
  });

  it('a replaced push terminal’s export (its serial changed in the config): filed under the old device, before the new one ever called', async () => {
    box = cliSandbox({
      adms: { listen: '127.0.0.1:0' },
      terminals: [{ name: 'lobby', kind: 'adms', serial: 'NEWPUSH02' }],
    });
    const j = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    j.ingest([{ terminal: 'lobby', device: 'OLDPUSH01', biometricCode: '1001', logTime: '2026-11-20 08:00:00' }]);
    j.close();
    writeFileSync(box.tmp.path('OLDPUSH01_attlog.dat'), lines('1001', '1002'));
    const r = await box.cli('import', box.tmp.path('OLDPUSH01_attlog.dat'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "the serial OLDPUSH01 in its name is the device terminal lobby was before NEWPUSH02: its punches are counted as that device's",
    );
    expect(r.stdout).toContain('OLDPUSH01_attlog.dat: 1 new, 1 duplicates, 0 bad');
    expect(rows()).toEqual(['lobby/OLDPUSH01/1001', 'lobby/OLDPUSH01/1002']);
  });

  it('the export of a terminal taken out of the config: filed under its device, not under "import" (sent again)', async () => {
    // Found by a site admin's trial: gate-2 taken out of the config, its stick imported later: its
    // 82 punches, all delivered, went in again under "import", each to be sent a second time.
    box = cliSandbox({ terminals: [{ name: 'gate-1', kind: 'zk', host: '127.0.0.1' }] });
    const j = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    j.ingest([{ terminal: 'gate-2', device: 'GONE0002', biometricCode: '2001', logTime: '2026-11-20 08:00:00' }]);
    j.close();
    writeFileSync(box.tmp.path('GONE0002_attlog.dat'), lines('2001', '2002'));
    const r = await box.cli('import', box.tmp.path('GONE0002_attlog.dat'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "the serial GONE0002 in its name is the device of terminal gate-2, which is no longer in the config: its punches are counted as that device's",
    );
    expect(r.stdout).toContain('GONE0002_attlog.dat: 1 new, 1 duplicates, 0 bad');
    expect(rows()).toEqual(['gate-2/GONE0002/2001', 'gate-2/GONE0002/2002']);
  });

  it('a copy of an export keeps its serial: "(1)" and "- Copy" that file managers and browsers add find the same terminal', async () => {
    // Found by a capture trial: the stick copied twice to a laptop, "BJ2C201460456_attlog (1).dat"
    // named no serial, its punches were counted under "import" beside gate-2's and sent again.
    box = cliSandbox({
      adms: { listen: '127.0.0.1:0' },
      terminals: [{ name: 'gate-2', kind: 'adms', serial: 'BJ2C201460456' }],
    });
    const names = [
      'BJ2C201460456_attlog.dat',
      'BJ2C201460456_attlog (1).dat',
      'BJ2C201460456_attlog(2).dat',
      'BJ2C201460456_attlog - Copy.dat',
      'BJ2C201460456_attlog - Copy (3).dat',
    ];
    for (const n of names) writeFileSync(box.tmp.path(n), lines('1001', '1002'));
    const r = await box.cli('import', ...names.map((n) => box.tmp.path(n)));
    expect(r.status, r.stderr).toBe(0);
    for (const n of names.slice(1)) {
      expect(r.stdout).toContain(`${n}: the serial BJ2C201460456 in its name is terminal gate-2's`);
      expect(r.stdout).toContain(`${n}: 0 new, 2 duplicates, 0 bad`);
    }
    expect(rows()).toEqual(['gate-2/BJ2C201460456/1001', 'gate-2/BJ2C201460456/1002']);
  });

  it('a device, a pipe or a folder is refused at once (66), never read for ever', async () => {
    // Found by an adversarial trial: /dev/zero or a FIFO never finished.
    box = cliSandbox();
    for (const [path, kind] of [
      ['/dev/zero', 'not a file (a device or a pipe)'],
      [box.tmp.path(''), 'a folder'],
    ] as const) {
      const r = await box.cli('import', path);
      expect(r.status, r.stderr).toBe(66);
      expect(r.stderr).toContain(`cannot read (${kind}): name the exported file`);
    }
  });

  it('a file that cannot be read among several is said and skipped; the files after it are still imported (66)', async () => {
    // Found by a trial: `import a.dat FOLDER b.dat` imported a.dat, stopped at the folder and said
    // nothing of b.dat, which was never read.
    box = cliSandbox();
    writeFileSync(box.tmp.path('1_attlog.dat'), lines('4001'));
    writeFileSync(box.tmp.path('2_attlog.dat'), lines('4002', '4003'));
    const r = await box.cli(
      'import',
      box.tmp.path('1_attlog.dat'),
      box.tmp.path(''),
      box.tmp.path('missing_attlog.dat'),
      box.tmp.path('2_attlog.dat'),
    );
    expect(r.status, r.stderr).toBe(66);
    expect(r.stderr).toContain('cannot read (a folder): name the exported file');
    expect(r.stderr).toContain('missing_attlog.dat: cannot read (ENOENT)');
    expect(r.stderr).toContain('2 of 4 files could not be read');
    expect(r.stdout).toContain('2_attlog.dat: 2 new, 0 duplicates, 0 bad');
    expect(rows()).toEqual(['import//4001', 'import//4002', 'import//4003']);
  });

  it('a serial no terminal is known by: said on stderr, counted under "import"; a machine number is no serial; --terminal wins', async () => {
    box = cliSandbox({
      adms: { listen: '127.0.0.1:0' },
      terminals: [{ name: 'lobby', kind: 'adms', serial: 'ADVSIM0005' }],
    });
    writeFileSync(box.tmp.path('OTHER0009_attlog.dat'), lines('3001'));
    writeFileSync(box.tmp.path('1_attlog.dat'), lines('4001'));
    writeFileSync(box.tmp.path('ADVSIM0005_attlog.dat'), lines('5001'));
    const r = await box.cli('import', box.tmp.path('OTHER0009_attlog.dat'), box.tmp.path('1_attlog.dat'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'OTHER0009_attlog.dat: no terminal of the config is known by the serial OTHER0009 in its name yet: its punches are counted under "import" as the device OTHER0009\'s',
    );
    expect(r.stderr).toContain('--terminal NAME names the terminal a stick is from at once');
    expect(r.stderr).not.toContain('1_attlog.dat');
    const meant = await box.cli('import', '--terminal', 'import', box.tmp.path('ADVSIM0005_attlog.dat'));
    expect(meant.status, meant.stderr).toBe(0);
    expect(meant.stdout + meant.stderr).not.toContain('in its name');
    expect(rows()).toEqual(['import//4001', 'import//5001', 'import/OTHER0009/3001']);
  });

  it('a stick of a terminal never reached yet, imported without --terminal: its first poll reads those punches as duplicates, never sent twice', async () => {
    // Found by a new site admin's first day: warehouse's address was wrong, its stick was imported
    // as import.md says, without --terminal: its 5 punches went under "import" by name alone. Once
    // the address was mended, warehouse's first poll read the same 5 from the device and journalled
    // them again, each sent a second time under a second devicelogId. The name of the file says
    // the device: the punches are that device's, whichever terminal turns out to be it.
    box = cliSandbox({ terminals: [{ name: 'warehouse', kind: 'zk', host: '127.0.0.1', port: 24371 }] });
    writeFileSync(box.tmp.path('A1ZK00000002_attlog.dat'), lines('2001', '2002'));
    writeFileSync(box.tmp.path('later.csv'), 'biometriccode,logDate\n2003,2026-11-20 09:00:00\n');
    const r = await box.cli('import', box.tmp.path('A1ZK00000002_attlog.dat'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('A1ZK00000002_attlog.dat: 2 new, 0 duplicates, 0 bad');
    // A CSV under "import" names no device: it stays filed by name, not under the stick's device.
    const csv = await box.cli('import', box.tmp.path('later.csv'));
    expect(csv.status, csv.stderr).toBe(0);
    // The terminal's first poll, as its source journals it: the same punches, with its serial.
    const j = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    try {
      const polled = j.ingest(
        ['2001', '2002'].map((c, i) => ({
          terminal: 'warehouse',
          device: 'A1ZK00000002',
          biometricCode: c,
          logTime: `2026-11-20 08:0${i}:00`,
        })),
      );
      expect(polled).toMatchObject({ added: 0, duplicates: 2 });
    } finally {
      j.close();
    }
    expect(rows()).toEqual(['import//2003', 'import/A1ZK00000002/2001', 'import/A1ZK00000002/2002']);
    expect(r.stderr).toContain(
      'A1ZK00000002_attlog.dat: no terminal of the config is known by the serial A1ZK00000002 in its name yet: its punches are counted under "import" as the device A1ZK00000002\'s: the terminal found to be that device (at its first poll) reads them again as duplicates, never sent twice, and so does an import of this file with --terminal NAME',
    );
  });
});

describe('a USB export line', () => {
  it('is code, time, machine number, state, verify type, work code (published exports: the state is the fourth column)', () => {
    const read = (line: string) => attlogPunch({ line: 1, cells: line.split('\t') }, { terminal: 't', device: '' });
    expect(read('        1\t2026-10-03 08:59:01\t1\t0\t1\t0')).toMatchObject({ punchState: 0, verifyType: 1 });
    expect(read('        1\t2026-10-03 18:10:22\t1\t1\t15\t0')).toMatchObject({ punchState: 1, verifyType: 15 });
    // Found by a new-user trial: a line of text was "biometric code has a blank (U+0020)".
    expect(read('garbage line here')).toBe(
      'not a punch line: no tab (or run of two spaces or more) between a code and a date-time',
    );
  });
});
