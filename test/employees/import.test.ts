import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importEmployees, type ImportDeps } from '../../src/employees/import-command.js';
import type { ImportReport } from '../../src/employees/report.js';
import { tempDir } from '../helpers/tmp.js';
import { HrmsUsers } from '../../src/hrms/users.js';
import { MSG } from '../../src/sim/hrms/index.js';
import { startRig, TOKEN, type Rig } from './helpers.js';

/** The HR export's own column names; employees.columns maps them to payload fields. */
const COLUMNS = {
  Login: 'username',
  'Full Name': 'name',
  'E-mail': 'email',
  'Birth date': 'dob',
  Designation: 'Role',
  Status: 'block',
};
const HEADER = 'Login,Full Name,E-mail,Birth date,Designation,Status,biometriccode,department';
const BAD_ROWS: Record<number, [string, string]> = {
  // data row -> [cell override as "column=value", expected reason]
  17: ['Birth date=1991-02-29', 'dob must be a real date YYYY-MM-DD, got "1991-02-29"'],
  500: ['E-mail=user500.example.com', 'email must be an e-mail address, got "user500.example.com"'],
  998: ['Status=active', 'block must be an integer, got "active"'],
};

function row(i: number, overrides: Record<string, string> = {}): string {
  const cells: Record<string, string> = {
    Login: `user${i}`,
    // Every tenth name holds a comma and a quote, as HR exports do.
    'Full Name': i % 10 === 0 ? `"Doe, Jane ""J${i}"""` : `Employee ${i}`,
    'E-mail': `user${i}@example.com`,
    'Birth date': `19${70 + (i % 30)}-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, '0')}`,
    Designation: i % 2 ? 'Engineer' : 'Operator',
    Status: '0',
    biometriccode: String(10000 + i),
    department: i % 3 ? 'Ops' : 'Sales',
    ...overrides,
  };
  return HEADER.split(',')
    .map((h) => cells[h])
    .join(',');
}

function csv(n: number, withBad: boolean, eol = '\r\n'): string {
  const lines = [HEADER];
  for (let i = 1; i <= n; i++) {
    const bad = withBad ? BAD_ROWS[i] : undefined;
    const [col, value] = bad ? (bad[0].split('=') as [string, string]) : [];
    lines.push(row(i, col ? { [col]: value! } : {}));
  }
  return '\uFEFF' + lines.join(eol) + eol;
}

describe('employees import against the simulator', () => {
  let rig: Rig;
  let tmp: ReturnType<typeof tempDir>;
  let userRequests: number;
  let deps: ImportDeps;

  beforeEach(async () => {
    userRequests = 0;
    rig = await startRig({
      log: (line) => void (line.startsWith('POST /api.php/system/hrms/updateUser') && userRequests++),
    });
    tmp = tempDir('punchgate-import-');
    deps = { ...rig.deps, err: rig.err, columns: COLUMNS, retry: { retries: 0 } };
  });
  afterEach(async () => {
    await rig.close();
    tmp.cleanup();
  });

  const report = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as ImportReport;

  it('1,000 rows with 3 bad ones: the 3 are reported with row, line and reason, 997 applied; a second run changes nothing', async () => {
    const file = tmp.path('staff.csv');
    writeFileSync(file, csv(1000, true));
    const first = await importEmployees(file, { report: tmp.path('r1.json') }, deps);
    expect(first).toBe(65);
    const r1 = report(tmp.path('r1.json'));
    expect(r1.summary).toEqual({
      rows: 1000,
      created: 997,
      updated: 0,
      unchanged: 0,
      failed: 0,
      invalid: 3,
      skipped: 0,
    });
    expect(r1.rows.filter((r) => r.action === 'invalid')).toEqual(
      Object.entries(BAD_ROWS).map(([n, [, message]]) => ({
        row: Number(n),
        line: Number(n) + 1,
        username: `user${n}`,
        action: 'invalid',
        message,
      })),
    );
    expect(r1.rows.map((r) => r.row)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(r1).toMatchObject({ mode: 'compare', dryRun: false, exitCode: 65 });
    expect(userRequests).toBe(997);

    const employees = rig.sim.employees();
    expect(employees).toHaveLength(997);
    expect(employees.map((e) => e.fields.username)).not.toContain('user500');
    expect(employees.find((e) => e.fields.username === 'user10')!.master).toMatchObject({
      'Employee Name': 'Doe, Jane "J10"',
      'Date of Birth': '1980-02-11',
      Designation: 'Operator',
      'User Status': 0,
      'Biometric Code': '10010',
      Department: 'Ops',
    });
    expect(rig.out.text).toContain('1000 rows: 997 created, 0 updated, 0 unchanged, 0 failed, 3 invalid, 0 skipped');
    expect(rig.out.text).toMatch(/\n17 +18 +user17 +invalid +dob must be a real date/);

    const snapshot = rig.sim.employees();
    const second = await importEmployees(file, { report: tmp.path('r2.json') }, deps);
    expect(second).toBe(65);
    expect(report(tmp.path('r2.json')).summary).toEqual({
      rows: 1000,
      created: 0,
      updated: 0,
      unchanged: 997,
      failed: 0,
      invalid: 3,
      skipped: 0,
    });
    expect(userRequests).toBe(997);
    expect(rig.sim.employees()).toEqual(snapshot);

    // The bad rows fixed: only they are sent.
    writeFileSync(file, csv(1000, false));
    expect(await importEmployees(file, { report: tmp.path('r3.json') }, deps)).toBe(0);
    expect(report(tmp.path('r3.json')).summary).toMatchObject({ created: 3, unchanged: 997, invalid: 0 });
    expect(userRequests).toBe(1000);
    expect(rig.sim.employees()).toHaveLength(1000);
  });

  it('a changed row sends only its changed fields; the rest of the record stays', async () => {
    const file = tmp.path('small.csv');
    writeFileSync(file, [HEADER, row(1), row(2), row(3)].join('\n'));
    expect(await importEmployees(file, {}, deps)).toBe(0);
    const before = rig.sim.employees();
    writeFileSync(
      file,
      [HEADER, row(1), row(2, { Designation: 'Lead', 'E-mail': 'USER2@example.com' }), row(3, { department: '' })].join(
        '\n',
      ),
    );
    expect(await importEmployees(file, { report: tmp.path('r.json') }, deps)).toBe(0);
    const r = report(tmp.path('r.json'));
    // The e-mail differs only in case (the HRMS compares addresses that way) and an empty cell means "leave it".
    expect(r.rows.map((x) => [x.username, x.action, x.fields])).toEqual([
      ['user1', 'unchanged', undefined],
      ['user2', 'updated', ['Role']],
      ['user3', 'unchanged', undefined],
    ]);
    const after = rig.sim.employees();
    expect(after[1]!.master).toEqual({ ...before[1]!.master, Designation: 'Lead' });
    expect(after[2]).toEqual(before[2]);
  });

  it('rows the HRMS refuses are reported as it answered (exit 1); the others are applied', async () => {
    const file = tmp.path('dupes.csv');
    // Row 3 reuses row 1's e-mail: the HRMS's uniqueness check refuses it; row 4 sends an unmapped column value.
    writeFileSync(
      file,
      [
        'Login,E-mail,Full Name,shoeSize',
        'a,a@example.com,A,',
        'b,b@example.com,B,',
        'c,a@example.com,C,',
        'd,d@example.com,D,44',
      ].join('\n'),
    );
    expect(await importEmployees(file, { report: tmp.path('r.json') }, deps)).toBe(1);
    const rows = report(tmp.path('r.json')).rows;
    expect(rows.map((r) => [r.row, r.line, r.username, r.action, r.message])).toEqual([
      [1, 2, 'a', 'created', 'Employee created'],
      [2, 3, 'b', 'created', 'Employee created'],
      [3, 4, 'c', 'failed', 'Validation failed: email: value a@example.com already belongs to employee E0001'],
      [4, 5, 'd', 'failed', 'Validation failed: field shoeSize is not mapped'],
    ]);
    expect(rows[2]).toMatchObject({ kind: 'validation', httpStatus: 400 });
    expect(rig.sim.employees().map((e) => e.fields.username)).toEqual(['a', 'b']);
  });

  it('invalid rows and rows the HRMS refuses in one file: exit 65, and the end says both', async () => {
    const file = tmp.path('both.csv');
    // Row 2 is invalid (never sent); row 3 reuses row 1's e-mail: the HRMS refuses it.
    writeFileSync(
      file,
      [
        'Login,E-mail,Full Name,Birth date',
        'a,a@example.com,A,1990-01-02',
        'b,b@example.com,B,1991-02-29',
        'c,a@example.com,C,1990-01-02',
      ].join('\n'),
    );
    expect(await importEmployees(file, { report: tmp.path('r.json') }, deps)).toBe(65);
    const r = report(tmp.path('r.json'));
    expect(r.exitCode).toBe(65);
    expect(r.rows.map((x) => x.action)).toEqual(['created', 'invalid', 'failed']);
    expect(rig.err.text).toContain(
      'punchgate: exit 65: 1 row invalid, not sent (fix it in the file); 1 row refused by the HRMS (read its message, fix the data or the mapping); the rows applied stay done: run the same file again',
    );

    // The HRMS unreachable besides: 75 wins (run again later), and the end still names the invalid row.
    rig.sim.setFaults({ errorRate: 1 });
    writeFileSync(
      file,
      ['Login,E-mail,Full Name,Birth date', 'b,b@example.com,B,1991-02-29', 'd,d@example.com,D,'].join('\n'),
    );
    expect(await importEmployees(file, {}, deps)).toBe(75);
    expect(rig.err.text).toContain(
      'punchgate: exit 75: the HRMS could not be reached (run again later); 1 row invalid, not sent (fix it in the file)',
    );
  });

  it('a refused token stops the import before anything is sent (exit 77, every row skipped)', async () => {
    const bad = await startRig({}, 'not-the-token');
    try {
      const file = tmp.path('t.csv');
      writeFileSync(file, [HEADER, row(1), row(2)].join('\n'));
      const code = await importEmployees(
        file,
        { report: tmp.path('r.json') },
        { ...bad.deps, err: bad.err, columns: COLUMNS },
      );
      expect(code).toBe(77);
      const r = report(tmp.path('r.json'));
      expect(r.summary).toMatchObject({ skipped: 2, created: 0 });
      expect(r.stopped).toEqual({ kind: 'auth', message: 'the HRMS refused the token: Bearer token is not correct' });
      expect(bad.err.text).toContain('import stopped: the HRMS refused the token: Bearer token is not correct');
      expect(bad.sim.employees()).toEqual([]);
    } finally {
      await bad.close();
    }
  });

  it('an unreachable HRMS stops the import with exit 75 after the retries; rows already sent stay done and a re-run finishes', async () => {
    const file = tmp.path('u.csv');
    writeFileSync(file, [HEADER, row(1), row(2), row(3)].join('\n'));
    writeFileSync(tmp.path('one.csv'), [HEADER, row(1)].join('\n'));
    expect(await importEmployees(tmp.path('one.csv'), {}, deps)).toBe(0);
    rig.sim.setFaults({ errorRate: 1 });
    const sleeps: number[] = [];
    const retry = { retries: 2, sleep: async (ms: number) => void sleeps.push(ms) };
    expect(await importEmployees(file, { report: tmp.path('r.json') }, { ...deps, retry })).toBe(75);
    const r = report(tmp.path('r.json'));
    expect(r.mode).toBe('whole-rows');
    expect(r.fetchProblem).toBe(
      'existing employees could not be fetched (Service temporarily unavailable); every row is sent whole',
    );
    expect(r.rows.map((x) => x.action)).toEqual(['failed', 'skipped', 'skipped']);
    expect(r.rows[0]).toMatchObject({ kind: 'transient', httpStatus: 503, message: 'Service temporarily unavailable' });
    expect(sleeps).toEqual([1000, 2000]);
    rig.sim.setFaults({ errorRate: 0 });
    expect(await importEmployees(file, { report: tmp.path('r2.json') }, deps)).toBe(0);
    expect(report(tmp.path('r2.json')).rows.map((x) => x.action)).toEqual(['unchanged', 'created', 'created']);
  });

  it('without a working fetch every row is sent whole, and a re-run is still safe', async () => {
    // An instance whose fetch path is not the configured one: the HRMS answers "input parameters are not valid".
    const client = new HrmsUsers({
      hrms: {
        baseUrl: rig.sim.url,
        userPath: '/api.php/system/hrms/updateUser',
        employeeFetch: {
          path: '/api.php/system/hrms/listStaff',
          method: 'GET',
          params: { status: 'status', department: 'department', designation: 'designation' },
        },
        timeoutMs: 5000,
        connectTimeoutMs: 2000,
      },
      token: { get: () => TOKEN },
      secrets: rig.secrets,
    });
    const noFetch = { ...deps, client };
    try {
      const file = tmp.path('w.csv');
      writeFileSync(file, [HEADER, row(1), row(2)].join('\n'));
      expect(await importEmployees(file, { report: tmp.path('r1.json') }, noFetch)).toBe(0);
      expect(report(tmp.path('r1.json')).rows.map((x) => x.action)).toEqual(['created', 'created']);
      const snapshot = rig.sim.employees();
      expect(await importEmployees(file, { report: tmp.path('r2.json') }, noFetch)).toBe(0);
      const r2 = report(tmp.path('r2.json'));
      expect(r2.mode).toBe('whole-rows');
      expect(r2.fetchProblem).toBe(
        `existing employees could not be fetched (${MSG.invalidPath}); every row is sent whole`,
      );
      expect(r2.rows.map((x) => [x.action, x.message])).toEqual([
        ['updated', 'Employee updated'],
        ['updated', 'Employee updated'],
      ]);
      expect(rig.sim.employees()).toEqual(snapshot);
      expect(rig.err.text).toContain('every row is sent whole');
    } finally {
      await client.close();
    }
  });

  it('--dry-run validates and compares but sends nothing', async () => {
    writeFileSync(tmp.path('one.csv'), [HEADER, row(1)].join('\n'));
    await importEmployees(tmp.path('one.csv'), {}, deps);
    const sent = userRequests;
    const file = tmp.path('d.csv');
    writeFileSync(
      file,
      [HEADER, row(1, { Designation: 'Chief' }), row(2), row(3, { 'Birth date': 'yesterday' })].join('\n'),
    );
    expect(await importEmployees(file, { dryRun: true, report: tmp.path('r.json') }, deps)).toBe(65);
    const r = report(tmp.path('r.json'));
    expect(r.dryRun).toBe(true);
    expect(r.rows.map((x) => [x.action, x.message])).toEqual([
      ['updated', 'dry run: would change Role'],
      ['created', 'dry run: would create'],
      ['invalid', 'dob must be a real date YYYY-MM-DD, got "yesterday"'],
    ]);
    expect(userRequests).toBe(sent);
    expect(rig.sim.employees()).toHaveLength(1);
    expect(rig.out.text).toContain(
      'dry run, nothing sent: 3 rows: 1 would be created, 1 would be updated, 0 unchanged, 0 failed, 1 invalid, 0 skipped\n',
    );
  });

  it('refuses a file it cannot use before sending anything', async () => {
    writeFileSync(tmp.path('nohead.csv'), 'Full Name,E-mail\nA,a@example.com\n');
    await expect(importEmployees(tmp.path('nohead.csv'), {}, deps)).rejects.toMatchObject({
      exitCode: 65,
      message: expect.stringContaining(
        'no column gives the required field "username" (employees.columns maps "Login" to it)',
      ),
    });
    writeFileSync(tmp.path('latin1-head.csv'), Buffer.from('Login,Nom de l\xe9gende\nu1,x\n', 'latin1'));
    await expect(importEmployees(tmp.path('latin1-head.csv'), {}, deps)).rejects.toMatchObject({
      exitCode: 65,
      message: expect.stringContaining('line 1: the header is not valid UTF-8 text'),
    });
    await expect(importEmployees(tmp.path('missing.csv'), {}, deps)).rejects.toMatchObject({ exitCode: 66 });
    expect(userRequests).toBe(0);
  });

  it('a file saved as Windows-1252: each row that is not UTF-8 is invalid with its line, the others are sent', async () => {
    const file = tmp.path('cp1252.csv');
    // Excel's "CSV" on a Western European Windows: é and ü as one byte each, CRLF line ends.
    const text = [HEADER, row(1, { 'Full Name': 'Jos\xe9 Pe\xf1a' }), row(2), row(3, { 'Full Name': 'Max M\xfcller' })];
    writeFileSync(file, Buffer.from(text.join('\r\n') + '\r\n', 'latin1'));
    expect(await importEmployees(file, { report: tmp.path('cp1252.json') }, deps)).toBe(65);
    const r = report(tmp.path('cp1252.json'));
    expect(r.rows.map((x) => [x.line, x.action, x.message])).toEqual([
      [2, 'invalid', 'is not valid UTF-8 text (save the file as UTF-8, e.g. "CSV UTF-8")'],
      [3, 'created', expect.any(String)],
      [4, 'invalid', 'is not valid UTF-8 text (save the file as UTF-8, e.g. "CSV UTF-8")'],
    ]);
    // Only the good row reached the HRMS, and no name was sent garbled.
    expect(rig.sim.employees().map((e) => e.fields.username)).toEqual(['user2']);
  });

  it('an instance that identifies employees by e-mail: matched without case, so a re-run changes nothing', async () => {
    const byMail = await startRig({ identifyBy: 'email' });
    try {
      const mailDeps: ImportDeps = {
        ...byMail.deps,
        err: byMail.err,
        columns: COLUMNS,
        identifyBy: 'email',
        retry: { retries: 0 },
      };
      const file = tmp.path('m.csv');
      writeFileSync(file, [HEADER, row(1), row(2)].join('\n'));
      expect(await importEmployees(file, {}, mailDeps)).toBe(0);
      writeFileSync(
        file,
        [HEADER, row(1, { 'E-mail': 'USER1@EXAMPLE.COM' }), row(2, { Designation: 'Lead' })].join('\n'),
      );
      expect(await importEmployees(file, { report: tmp.path('m.json') }, mailDeps)).toBe(0);
      expect(report(tmp.path('m.json')).rows.map((r) => [r.username, r.action, r.fields])).toEqual([
        ['USER1@EXAMPLE.COM', 'unchanged', undefined],
        ['user2@example.com', 'updated', ['Role']],
      ]);
      expect(byMail.sim.employees().map((e) => e.master.Designation)).toEqual(['Engineer', 'Lead']);
    } finally {
      await byMail.close();
    }
  });

  it('draws a progress bar on stderr only when it is a terminal', async () => {
    const file = tmp.path('p.csv');
    writeFileSync(file, [HEADER, row(1), row(2)].join('\n'));
    await importEmployees(file, {}, deps);
    expect(rig.err.text).not.toContain('\r');
    rig.err.isTTY = true;
    await importEmployees(file, {}, deps);
    expect(rig.err.text).toContain('\r\x1b[K[');
    expect(rig.err.text).toMatch(/\] 2\/2 {2}unchanged 2\n/);
  });
});
