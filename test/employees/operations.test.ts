import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmployee, disableEmployee, fetchEmployees, updateEmployee } from '../../src/employees/commands.js';
import { pushPunches, startRig, TOKEN, type Rig } from './helpers.js';

const JDOE = {
  username: 'jdoe',
  name: 'John Doe',
  email: 'jdoe@example.com',
  gender: 'Male',
  dob: '1990-04-01',
  role: 'Engineer',
  zone: 'North',
  block: '0',
  panAttach: 'https://docs.example.com/pan/jdoe.pdf',
  field: ['biometriccode=1001', 'department=Ops'],
};

describe('employee operations against the simulator', () => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig();
  });
  afterEach(async () => {
    await rig.close();
  });

  it('create sends the seed types and reports the HRMS answer; the master record carries every field', async () => {
    expect(await createEmployee(JDOE, rig.deps)).toBe(0);
    expect(rig.out.text).toMatch(/^Employee created\n/);
    expect(JSON.parse(rig.out.text.slice('Employee created\n'.length))).toMatchObject({
      Username: 'jdoe',
      employeeId: 'E0001',
    });
    const [e] = rig.sim.employees();
    expect(e!.status).toBe('active');
    expect(e!.master).toEqual({
      Username: 'jdoe',
      'Employee Name': 'John Doe',
      'Official Email': 'jdoe@example.com',
      Gender: 'Male',
      'Date of Birth': '1990-04-01',
      Designation: 'Engineer',
      Zone: 'North',
      'User Status': 0,
      'PAN Document': 'https://docs.example.com/pan/jdoe.pdf',
      'Biometric Code': '1001',
      Department: 'Ops',
      'Employee ID': 'E0001',
    });
  });

  it('update changes only the fields given; every other master field stays', async () => {
    await createEmployee(JDOE, rig.deps);
    const before = rig.sim.employees()[0]!.master;
    expect(
      await updateEmployee(
        'jdoe',
        { email: 'john.doe@example.com', role: 'Lead', field: ['department=Eng'] },
        rig.deps,
      ),
    ).toBe(0);
    expect(rig.out.text).toContain('Employee updated');
    const after = rig.sim.employees()[0]!.master;
    expect(after).toEqual({
      ...before,
      'Official Email': 'john.doe@example.com',
      Designation: 'Lead',
      Department: 'Eng',
    });
  });

  it('update refuses, before sending, an empty change set or a bad value (exit 65)', async () => {
    await createEmployee(JDOE, rig.deps);
    expect(await updateEmployee('jdoe', {}, rig.deps)).toBe(65);
    expect(await updateEmployee('jdoe', { dob: '1990-02-31' }, rig.deps)).toBe(65);
    expect(await updateEmployee('jdoe', { block: 'yes' }, rig.deps)).toBe(65);
    expect(await updateEmployee('jdoe', { field: ['noequals'] }, rig.deps)).toBe(65);
    expect(await updateEmployee('jdoe', { role: 'A', field: ['Role=B'] }, rig.deps)).toBe(65);
    expect(rig.err.text.split('\n').filter(Boolean)).toEqual([
      'punchgate: nothing sent: nothing to update: give at least one field to change',
      'punchgate: nothing sent: dob must be a real date YYYY-MM-DD, got "1990-02-31"',
      'punchgate: nothing sent: block must be an integer, got "yes"',
      'punchgate: nothing sent: --field noequals: expected key=value',
      'punchgate: nothing sent: --field Role=B: Role is given twice',
    ]);
    expect(rig.sim.employees()[0]!.master['Date of Birth']).toBe('1990-04-01');
  });

  it('create refuses client-side an invalid e-mail, date, URL or block (exit 65, nothing sent)', async () => {
    const cases: Array<[Partial<typeof JDOE>, RegExp]> = [
      [{ email: 'jdoe@' }, /email must be an e-mail address/],
      [{ dob: '1990-4-1' }, /dob must be a real date/],
      [{ panAttach: 'not a url' }, /panAttach must be an http\(s\) URL/],
      [{ block: '1.0' }, /block must be an integer/],
    ];
    for (const [override, message] of cases) {
      rig.err.text = '';
      expect(await createEmployee({ ...JDOE, ...override }, rig.deps)).toBe(65);
      expect(rig.err.text).toMatch(message);
    }
    expect(rig.sim.employees()).toEqual([]);
  });

  it('reports the HRMS validation errors as given (exit 1): unmapped field, type mismatch, missing mandatory field', async () => {
    expect(await createEmployee({ ...JDOE, field: ['shoeSize=42'] }, rig.deps)).toBe(1);
    expect(rig.err.text).toBe(
      'punchgate: the HRMS refused the data (HTTP 400): Validation failed: field shoeSize is not mapped\n',
    );
    rig.err.text = '';
    // block 2 is an integer (our check) but not a value the simulator accepts.
    expect(await createEmployee({ ...JDOE, block: '2' }, rig.deps)).toBe(1);
    expect(rig.err.text).toContain('Validation failed: block: value must be 0 (Active) or 1 (Blocked)');
    rig.err.text = '';
    // department mapped as a string on the HRMS; a hint that makes it an integer shows the type check.
    expect(
      await createEmployee({ ...JDOE, field: ['department=7'] }, { ...rig.deps, types: { department: 'integer' } }),
    ).toBe(1);
    expect(rig.err.text).toContain('Validation failed: department: data type must match string');
    rig.err.text = '';
    expect(await createEmployee({ username: 'z', email: 'z@example.com' }, rig.deps)).toBe(1);
    expect(rig.err.text).toBe(
      'punchgate: the HRMS refused the data (HTTP 400): Validation failed: mandatory field Employee Name (name) is missing\n',
    );
    rig.err.text = '';
    expect(
      await createEmployee({ username: 'x', name: 'X', email: 'x@example.com', field: ['biometriccode=1'] }, rig.deps),
    ).toBe(0);
    expect(await createEmployee({ username: 'y', name: 'Y', email: 'x@example.com' }, rig.deps)).toBe(1);
    expect(rig.err.text).toContain('Validation failed: email: value x@example.com already belongs to employee E0001');
    expect(rig.sim.employees().map((e) => e.fields.username)).toEqual(['x']);
  });

  it('--json prints the answer object, failure included', async () => {
    expect(await disableEmployee('ghost', { json: true }, rig.deps)).toBe(1);
    expect(JSON.parse(rig.out.text)).toEqual({
      ok: false,
      kind: 'not-found',
      httpStatus: 404,
      message: 'Employee not found: ghost',
    });
  });

  it('update and disable of an unknown username are reported as not found (exit 1) and change nothing', async () => {
    await createEmployee(JDOE, rig.deps);
    expect(await updateEmployee('ghost', { role: 'Lead' }, rig.deps)).toBe(1);
    expect(await disableEmployee('ghost', {}, rig.deps)).toBe(1);
    expect(rig.err.text).toBe(
      'punchgate: the HRMS found no such employee (HTTP 404): Employee not found: ghost\n'.repeat(2),
    );
    expect(rig.sim.employees()).toHaveLength(1);
    expect(rig.sim.employees()[0]!.master.Designation).toBe('Engineer');
  });

  it('disable blocks the account, keeps its record and attendance history, and its new punches are refused', async () => {
    await createEmployee(JDOE, rig.deps);
    expect(await pushPunches(rig.sim, [{ biometriccode: '1001', logDate: '2026-03-02 08:59:00' }])).toEqual([
      { status: true, message: 'Attendance added successfully' },
    ]);
    expect(await disableEmployee('jdoe', {}, rig.deps)).toBe(0);
    expect(rig.out.text).toContain('Employee disabled');
    const [e] = rig.sim.employees();
    expect(e!.status).toBe('blocked');
    expect(e!.master['Employee Name']).toBe('John Doe');
    expect(rig.sim.attendance().map((p) => [p.biometriccode, p.logDate])).toEqual([['1001', '2026-03-02 08:59:00']]);
    const after = await pushPunches(rig.sim, [{ biometriccode: '1001', logDate: '2026-03-03 09:01:00' }]);
    expect(after).toEqual([{ status: false, message: 'Employee 1001 is disabled: punch refused' }]);
    expect(rig.sim.attendance()).toHaveLength(1);
  });

  it('fetch prints a table or JSON and passes the filters', async () => {
    await createEmployee(JDOE, rig.deps);
    await createEmployee(
      { username: 'asmith', name: 'Ann Smith', email: 'ann@example.com', role: 'Manager', field: ['department=Sales'] },
      rig.deps,
    );
    await disableEmployee('asmith', {}, rig.deps);
    rig.out.text = '';
    expect(await fetchEmployees({}, {}, rig.deps)).toBe(0);
    const lines = rig.out.text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^username\s+employeeId\s+name\s+email\s/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/)[0])).toEqual(['jdoe', 'asmith']);
    expect(rig.err.text).toBe('2 employees\n');

    const json = async (filter: Parameters<typeof fetchEmployees>[0]) => {
      rig.out.text = '';
      expect(await fetchEmployees(filter, { json: true }, rig.deps)).toBe(0);
      return (JSON.parse(rig.out.text) as Array<Record<string, unknown>>).map((r) => r.username);
    };
    expect(await json({ status: 'active' })).toEqual(['jdoe']);
    expect(await json({ status: 'blocked' })).toEqual(['asmith']);
    expect(await json({ department: 'sales' })).toEqual(['asmith']);
    expect(await json({ designation: 'Engineer' })).toEqual(['jdoe']);
    // Nobody matches: no table at all (an empty one was a blank line), and the count says so.
    rig.out.text = rig.err.text = '';
    expect(await fetchEmployees({ department: 'nowhere' }, {}, rig.deps)).toBe(0);
    expect([rig.out.text, rig.err.text]).toEqual(['', '0 employees\n']);
    expect(await fetchEmployees({ status: 'sleeping' }, {}, rig.deps)).toBe(1);
    expect(rig.err.text).toContain('Validation failed: status: must be active, blocked or all');
  });
});

describe('token and reachability', () => {
  it('a refused token is reported as the HRMS said it, with exit 77, and the token appears nowhere', async () => {
    const secret = 'wrong-token-0c5e77';
    const rig = await startRig({}, secret);
    try {
      expect(await createEmployee(JDOE, rig.deps)).toBe(77);
      expect(await updateEmployee('jdoe', { role: 'x' }, rig.deps)).toBe(77);
      expect(await disableEmployee('jdoe', {}, rig.deps)).toBe(77);
      expect(await fetchEmployees({}, { json: true }, rig.deps)).toBe(77);
      expect(rig.err.text.split('\n').filter(Boolean)).toEqual(
        Array(4).fill(
          'punchgate: the HRMS refused the token (HTTP 401): Bearer token is not correct — put a valid token where hrms.tokenFile (or PUNCHGATE_HRMS_TOKEN) points; punchgate check tells whether the HRMS takes it',
        ),
      );
      expect(rig.out.text + rig.err.text).not.toContain(secret);
      expect(rig.sim.employees()).toEqual([]);
    } finally {
      await rig.close();
    }
    expect(TOKEN).not.toBe(secret);
  });

  it('an HRMS that is down is a temporary failure (exit 75); a 503 or an HTML page too', async () => {
    const rig = await startRig();
    try {
      rig.sim.setFaults({ errorRate: 1 });
      expect(await createEmployee(JDOE, rig.deps)).toBe(75);
      expect(rig.err.text).toBe(
        'punchgate: no usable answer from the HRMS (HTTP 503): Service temporarily unavailable — try again later, or show this message to the HRMS administrator\n',
      );
      rig.sim.setFaults({ errorRate: 0, nonJsonRate: 1 });
      rig.err.text = '';
      expect(await createEmployee(JDOE, rig.deps)).toBe(75);
      expect(rig.err.text).toMatch(
        /^punchgate: no usable answer from the HRMS \(HTTP 200\): the HRMS answered HTTP 200 with a body that is not JSON: <html>/,
      );
      await rig.sim.stop();
      rig.err.text = '';
      expect(await createEmployee(JDOE, rig.deps)).toBe(75);
      expect(rig.err.text).toMatch(
        /^punchgate: no usable answer from the HRMS: cannot reach the HRMS at http:\/\/127\.0\.0\.1:\d+\/api\.php\/system\/hrms\/updateUser: .*(ECONNREFUSED|UND_ERR_SOCKET|ECONNRESET).* — check hrms\.baseUrl, the network route and firewall or proxy between this box and the HRMS, and that the HRMS is up\n$/,
      );
    } finally {
      await rig.close();
    }
  });
});
