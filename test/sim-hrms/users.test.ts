import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMappingFile, MSG, startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { FETCH_PATH, TOKEN, alice, bob, get, postJson, user, useHrmsSim } from './helpers.js';
import { tempDir } from '../helpers/tmp.js';

const start = useHrmsSim();

describe('user operations', () => {
  it('creates an employee and answers the created master record with its employeeId', async () => {
    const s = await start();
    const r = await user(s, alice);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      status: true,
      message: 'Employee created',
      data: {
        Username: 'alice',
        'Employee Name': 'Alice Example',
        'Official Email': 'alice@example.com',
        Gender: 'Female',
        'Date of Birth': '1990-04-01',
        Designation: 'Engineer',
        Zone: null,
        'User Status': 0,
        'Biometric Code': '101',
        Department: 'R&D',
        'Employee ID': 'E0001',
        employeeId: 'E0001',
      },
    });
    expect(s.employees()).toMatchObject([{ employeeId: 'E0001', status: 'active', biometricCode: '101' }]);
    expect(s.employees()[0]?.fields.username).toBe('alice');
  });

  it('updates only the fields present', async () => {
    const s = await start();
    await user(s, alice);
    const r = await user(s, { username: 'alice', email: 'alice@new.example.com', Role: '' });
    expect(r.json.message).toBe('Employee updated');
    const e = s.employees()[0]!;
    expect(e.master['Official Email']).toBe('alice@new.example.com');
    expect(e.master.Designation).toBe('');
    expect(e.master['Employee Name']).toBe('Alice Example');
    expect(e.master['Date of Birth']).toBe('1990-04-01');
    expect(s.employees()).toHaveLength(1);
  });

  it('disables with delete "true": blocked, record kept; update block 0 enables again', async () => {
    const s = await start();
    await user(s, alice);
    const r = await user(s, { delete: 'true', username: 'alice' });
    expect(r.json).toEqual({ status: true, message: 'Employee disabled' });
    expect(s.employees()[0]).toMatchObject({
      status: 'blocked',
      master: { 'User Status': 1, 'Employee Name': 'Alice Example' },
    });
    expect((await user(s, { delete: 'true', username: 'alice' })).json.status).toBe(true);
    await user(s, { username: 'alice', block: 0 });
    expect(s.employees()[0]?.status).toBe('active');
    await user(s, { username: 'alice', block: 1 });
    expect(s.employees()[0]?.status).toBe('blocked');
  });

  it('answers "Employee not found" when disabling or partially updating an unknown identifier', async () => {
    const s = await start();
    const d = await user(s, { delete: 'true', username: 'ghost' });
    expect(d.status).toBe(404);
    expect(d.json).toEqual({ status: false, message: 'Employee not found: ghost' });
    const u = await user(s, { username: 'ghost', Role: 'Boss' });
    expect(u.json).toEqual({ status: false, message: MSG.notFound('ghost') });
    expect(s.employees()).toEqual([]);
  });

  it('refuses a create missing a mandatory field, listing every one', async () => {
    const s = await start();
    const r = await user(s, { username: 'carol', name: 'Carol' });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      status: false,
      message: 'Validation failed: mandatory field Official Email (email) is missing',
    });
    const both = await user(s, { username: 'carol', email: 'carol@example.com', name: null, dob: '1990-13-01' });
    expect(both.json.message).toBe(
      'Validation failed: name: data type must match string; dob: data type must match date; mandatory field Employee Name (name) is missing',
    );
    expect(s.employees()).toEqual([]);
  });

  it('reports unmapped fields and type mismatches together in one message', async () => {
    const s = await start();
    const r = await user(s, {
      ...alice,
      dob: '01/04/1990',
      block: '0',
      email: 'not-an-email',
      panAttach: 'file.pdf',
      shoeSize: 42,
    });
    expect(r.status).toBe(400);
    expect(r.json.status).toBe(false);
    expect(r.json.message).toBe(
      'Validation failed: email: data type must match email; dob: data type must match date; ' +
        'block: data type must match integer; panAttach: data type must match url; field shoeSize is not mapped',
    );
    expect(s.employees()).toEqual([]);
  });

  it('refuses block values other than 0 and 1, a bad delete value, a missing identifier', async () => {
    const s = await start();
    expect((await user(s, { ...alice, block: 2 })).json.message).toBe(
      'Validation failed: block: value must be 0 (Active) or 1 (Blocked)',
    );
    expect((await user(s, { delete: 'yes', username: 'alice' })).json.message).toBe(
      'Validation failed: delete: must be the text true',
    );
    expect((await user(s, { name: 'No Id' })).json.message).toBe(
      'Validation failed: username is required to identify the employee; mandatory field Official Email (email) is missing',
    );
  });

  it('refuses a biometric code or e-mail that belongs to another employee', async () => {
    const s = await start();
    await user(s, alice);
    const r = await user(s, { ...bob, biometriccode: '101', email: 'ALICE@example.com' });
    expect(r.json.message).toBe(
      'Validation failed: email: value ALICE@example.com already belongs to employee E0001; biometriccode: value 101 already belongs to employee E0001',
    );
  });

  it('refuses a body that is not a JSON object, and a refused token', async () => {
    const s = await start();
    const nj = await user(s, '{not json');
    expect(nj.status).toBe(400);
    expect(nj.json).toEqual({ status: false, message: 'Validation failed: request body is not valid JSON' });
    expect((await user(s, [alice])).json.message).toBe('Validation failed: request body must be a JSON object');
    const t = await user(s, alice, 'bad-token');
    expect(t.status).toBe(401);
    expect(t.json).toEqual({ status: false, message: 'Bearer token is not correct' });
    expect(s.employees()).toEqual([]);
  });

  it('identifies by email when configured', async () => {
    const s = await start({ identifyBy: 'email' });
    await user(s, alice);
    const r = await user(s, { email: 'Alice@Example.com', Role: 'Lead' });
    expect(r.json.message).toBe('Employee updated');
    expect(s.employees()[0]?.master.Designation).toBe('Lead');
    expect((await user(s, { delete: 'true', email: 'alice@example.com' })).json.message).toBe('Employee disabled');
  });

  it('identifies by employeeId when configured, taking the id the client sends', async () => {
    const s = await start({ identifyBy: 'employeeId', mandatory: ['employeeId', 'name'] });
    expect((await user(s, { employeeId: 'EMP-9', name: 'Nine' })).json.data.employeeId).toBe('EMP-9');
    expect((await user(s, { employeeId: 'EMP-9', zone: 'North' })).json.message).toBe('Employee updated');
    expect(s.employees()[0]?.master.Zone).toBe('North');
  });

  it('uses the service word in the path', async () => {
    const s = await start({ serviceWord: 'acme' });
    expect((await postJson(s, '/api.php/system/acme/updateUser', alice)).json.message).toBe('Employee created');
    expect((await postJson(s, '/api.php/system/hrms/updateUser', alice)).json.message).toBe(MSG.invalidPath);
  });
});

describe('custom field mapping', () => {
  const dir = tempDir('pg-sim-mapping-');
  afterAll(() => dir.cleanup());

  it('loads a YAML mapping (shorthand and full entries) and creates with its custom fields', async () => {
    const file = dir.path('mapping.yaml');
    writeFileSync(
      file,
      [
        'username: { field: Login, type: string }',
        'fullName: Employee Name',
        'mail: { field: Official Email, type: email }',
        'badge: { field: Badge No }',
        'remote: { field: Remote Worker, type: boolean }',
      ].join('\n'),
    );
    const mapping = loadMappingFile(file);
    expect(mapping.fullName).toEqual({ field: 'Employee Name', type: 'string' });
    const s = await start({ mapping, mandatory: ['username', 'fullName', 'Official Email'] });
    expect((await user(s, { username: 'x1', fullName: 'X One' })).json.message).toBe(
      'Validation failed: mandatory field Official Email (mail) is missing',
    );
    const r = await user(s, { username: 'x1', fullName: 'X One', mail: 'x1@example.com', badge: 'B-7', remote: false });
    expect(r.json.data).toEqual({
      Login: 'x1',
      'Employee Name': 'X One',
      'Official Email': 'x1@example.com',
      'Badge No': 'B-7',
      'Remote Worker': false,
      employeeId: 'E0001',
    });
  });

  it('refuses to start when the identifier or a mandatory field is not mapped', async () => {
    const mapping = { login: { field: 'Username', type: 'string' as const } };
    await expect(startHrmsSim({ mapping })).rejects.toThrow(
      /identifyBy: payload field username is not in the field mapping/,
    );
    await expect(startHrmsSim({ mandatory: ['Shoe Size'] })).rejects.toThrow(/mandatory field "Shoe Size"/);
  });

  it('accepts mapped custom fields and refuses wrong types with the master type named', async () => {
    const mapping = {
      username: { field: 'Username', type: 'string' as const },
      name: { field: 'Employee Name', type: 'string' as const },
      remote: { field: 'Remote Worker', type: 'boolean' as const },
      grade: { field: 'Grade', type: 'integer' as const },
      site: { field: 'Site URL', type: 'url' as const },
    };
    const s = await start({ mapping });
    const ok = await user(s, {
      username: 'u1',
      name: 'U One',
      remote: true,
      grade: 3,
      site: 'https://intra.example.com/u1',
    });
    expect(ok.json.data).toMatchObject({ Username: 'u1', 'Remote Worker': true, Grade: 3, employeeId: 'E0001' });
    const bad = await user(s, { username: 'u1', remote: 'yes', grade: 3.5, email: 'u1@example.com' });
    expect(bad.json.message).toBe(
      'Validation failed: remote: data type must match boolean; grade: data type must match integer; field email is not mapped',
    );
    // Without `block` mapped the fetch view still reports the account state.
    expect((await get(s, FETCH_PATH)).json.data).toEqual([
      {
        employeeId: 'E0001',
        username: 'u1',
        name: 'U One',
        remote: true,
        grade: 3,
        site: 'https://intra.example.com/u1',
        block: 0,
      },
    ]);
  });

  it('refuses a mapping file that maps delete, maps one master field twice or has a bad type', () => {
    const file = dir.path('bad.json');
    writeFileSync(
      file,
      JSON.stringify({ delete: 'Deleted', a: 'Username', b: { field: 'Username' }, c: { field: 'X', type: 'float' } }),
    );
    expect(() => loadMappingFile(file)).toThrow(/c\.type/);
    writeFileSync(file, JSON.stringify({ delete: 'Deleted', a: 'Username', b: { field: 'Username' } }));
    expect(() => loadMappingFile(file)).toThrow(
      /delete: a control field[\s\S]*b: master field "Username" is already mapped from a/,
    );
  });
});

describe('fetch employees', () => {
  async function withThree(): Promise<HrmsSim> {
    const s = await start();
    await user(s, alice);
    await user(s, bob);
    await user(s, {
      username: 'carol',
      name: 'Carol',
      email: 'carol@example.com',
      Role: 'Engineer',
      department: 'Plant',
      block: 0,
    });
    await user(s, { delete: 'true', username: 'bob' });
    return s;
  }
  const names = (r: { json: { data: Array<{ username: string }> } }) => r.json.data.map((e) => e.username);

  it('lists employees under payload field names, filtered by status, department and designation', async () => {
    const s = await withThree();
    const all = await get(s, FETCH_PATH);
    expect(all.json.status).toBe(true);
    expect(names(all)).toEqual(['alice', 'bob', 'carol']);
    expect(all.json.data[0]).toMatchObject({
      employeeId: 'E0001',
      username: 'alice',
      email: 'alice@example.com',
      Role: 'Engineer',
      block: 0,
    });
    expect(names(await get(s, `${FETCH_PATH}?status=active`))).toEqual(['alice', 'carol']);
    expect(names(await get(s, `${FETCH_PATH}?status=blocked`))).toEqual(['bob']);
    expect(names(await get(s, `${FETCH_PATH}?department=plant`))).toEqual(['bob', 'carol']);
    expect(names(await get(s, `${FETCH_PATH}?designation=Engineer&status=active&department=Plant`))).toEqual(['carol']);
    expect(names(await get(s, `${FETCH_PATH}?username=alice`))).toEqual(['alice']);
  });

  it('accepts POST with JSON or form parameters', async () => {
    const s = await withThree();
    expect(names(await postJson(s, FETCH_PATH, { status: 'blocked' }))).toEqual(['bob']);
    const { request } = await import('undici');
    const res = await request(`${s.url}${FETCH_PATH}`, {
      method: 'POST',
      body: 'department=R%26D',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(((await res.body.json()) as { data: Array<{ username: string }> }).data.map((e) => e.username)).toEqual([
      'alice',
    ]);
  });

  it('refuses unknown filters and statuses, and a refused token', async () => {
    const s = await withThree();
    const r = await get(s, `${FETCH_PATH}?status=gone&colour=blue`);
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(
      'Validation failed: status: must be active, blocked or all; filter colour is not supported',
    );
    expect((await get(s, FETCH_PATH, null)).json).toEqual({ status: false, message: MSG.badToken });
  });
});
