import { describe, expect, it } from 'vitest';
import { changedFields, sameValue } from '../../src/employees/diff.js';
import { planImport } from '../../src/employees/import-plan.js';
import {
  buildPayload,
  coerce,
  disablePayload,
  isRealDate,
  parseFieldOption,
  readEmployeeExtras,
} from '../../src/employees/payload.js';

describe('payload types', () => {
  it('sends the seed types: block an integer, Role with a capital R, dob a date, panAttach a URL', () => {
    const b = buildPayload({
      username: ' jdoe ',
      name: 'John Doe',
      email: 'jdoe@example.com',
      dob: '1990-02-28',
      Role: 'Engineer',
      zone: 'North',
      block: '0',
      panAttach: 'https://docs.example.com/pan/jdoe.pdf',
      biometriccode: '0042',
    });
    expect(b.errors).toEqual([]);
    expect(b.payload).toEqual({
      username: 'jdoe',
      name: 'John Doe',
      email: 'jdoe@example.com',
      dob: '1990-02-28',
      Role: 'Engineer',
      zone: 'North',
      block: 0,
      panAttach: 'https://docs.example.com/pan/jdoe.pdf',
      // A custom field stays a string, leading zeros and all.
      biometriccode: '0042',
    });
  });

  it('refuses each bad value with the field and the reason', () => {
    const b = buildPayload({
      username: 'u',
      dob: '1990-02-30',
      block: '0.5',
      email: 'not-an-email',
      panAttach: 'ftp://x/y',
    });
    expect(b.errors).toEqual([
      { field: 'dob', message: 'must be a real date YYYY-MM-DD, got "1990-02-30"' },
      { field: 'block', message: 'must be an integer, got "0.5"' },
      { field: 'email', message: 'must be an e-mail address, got "not-an-email"' },
      { field: 'panAttach', message: 'must be an http(s) URL, got "ftp://x/y"' },
    ]);
  });

  it('knows real dates', () => {
    expect(isRealDate('2024-02-29')).toBe(true);
    expect(isRealDate('2023-02-29')).toBe(false);
    expect(isRealDate('1990-13-01')).toBe(false);
    expect(isRealDate('1990-1-01')).toBe(false);
    expect(isRealDate('01-01-1990')).toBe(false);
  });

  it('leaves out empty values and reports missing required fields', () => {
    const b = buildPayload({ username: 'u', name: '  ', email: '' }, { required: ['username', 'name', 'email'] });
    expect(b.payload).toEqual({ username: 'u' });
    expect(b.errors.map((e) => `${e.field} ${e.message}`)).toEqual(['name is required', 'email is required']);
  });

  it('zone "null" is sent as null; a type hint types a custom field', () => {
    expect(buildPayload({ zone: 'null' }).payload).toEqual({ zone: null });
    const hinted = buildPayload({ grade: '7', remote: 'yes' }, { types: { grade: 'integer', remote: 'boolean' } });
    expect(hinted.payload).toEqual({ grade: 7, remote: true });
    expect(coerce('integer', '7x')).toEqual({ ok: false, message: 'must be an integer, got "7x"' });
  });

  it('never builds a delete field from data: disable has its own body', () => {
    expect(buildPayload({ username: 'u', delete: 'true' }).errors).toEqual([
      { field: 'delete', message: 'is only sent by "employees disable"' },
    ]);
    expect(disablePayload('username', 'jdoe')).toEqual({ delete: 'true', username: 'jdoe' });
  });

  it('parses --field key=value, keeping "=" in the value', () => {
    expect(parseFieldOption('note=a=b')).toEqual({ key: 'note', value: 'a=b' });
    expect(parseFieldOption('=x')).toBeUndefined();
    expect(parseFieldOption('novalue')).toBeUndefined();
  });

  it('reads optional config keys defensively', () => {
    expect(readEmployeeExtras({ columns: {}, required: [] })).toEqual({ types: {}, identifyBy: 'username' });
    expect(readEmployeeExtras({ types: { grade: 'integer', bad: 'weird', n: 3 }, identifyBy: 'email' })).toEqual({
      types: { grade: 'integer' },
      identifyBy: 'email',
    });
  });
});

describe('comparison with the HRMS record', () => {
  it('counts only real differences', () => {
    expect(sameValue('integer', 0, '0')).toBe(true);
    expect(sameValue('email', 'A@X.com', 'a@x.com')).toBe(true);
    expect(sameValue('date', '1990-01-02', '1990-01-02 00:00:00')).toBe(true);
    expect(sameValue('nullable-string', null, '')).toBe(true);
    expect(sameValue('string', 'a', 'b')).toBe(false);
    const rec = { username: 'u', name: 'Ann', block: 0, email: 'ann@x.com' };
    expect(changedFields({ username: 'u', name: 'Ann', block: 0, email: 'ANN@x.com' }, rec, 'username')).toEqual([]);
    expect(changedFields({ username: 'u', name: 'Anne', Role: 'Dev' }, rec, 'username')).toEqual(['name', 'Role']);
  });
});

describe('planImport', () => {
  const base = { columns: {}, required: ['username'], identifyBy: 'username' };

  it('maps columns through employees.columns, keeps unmapped headers, and drops columns mapped to ""', () => {
    const plan = planImport('Login,Full Name,department,Notes\nu1,Ann,Ops,ignore me\n', {
      ...base,
      columns: { Login: 'username', 'Full Name': 'name', Notes: '' },
    });
    expect(plan.fields).toEqual(['username', 'name', 'department', undefined]);
    expect(plan.valid).toEqual([
      { row: 1, line: 2, id: 'u1', payload: { username: 'u1', name: 'Ann', department: 'Ops' } },
    ]);
  });

  it('refuses the whole file when a required column is missing or two columns give one field', () => {
    expect(planImport('name\nAnn\n', base).fileErrors).toEqual([
      'line 1: no column gives the required field "username" (add the column, or map one to it in employees.columns)',
    ]);
    expect(planImport('user,username\na,b\n', { ...base, columns: { user: 'username' } }).fileErrors).toEqual([
      'line 1: columns "user" and "username" both give the payload field "username"',
    ]);
    expect(planImport('username,delete\na,true\n', base).fileErrors[0]).toMatch(/"delete" column is not accepted/);
    expect(planImport('', base).fileErrors).toEqual(['the file has no header line']);
  });

  it('makes a row invalid for bad values, a missing identifier, a repeated identifier or bad CSV, with row and line', () => {
    const text = 'username,email,dob\nu1,a@x.com,1990-01-01\nu2,bad,1990-01-01\n,c@x.com,\nu1,d@x.com,\n"u5,e@x.com,\n';
    const plan = planImport(text, base);
    expect(plan.valid.map((r) => r.id)).toEqual(['u1']);
    expect(plan.invalid).toEqual([
      { row: 2, line: 3, id: 'u2', message: 'email must be an e-mail address, got "bad"' },
      { row: 3, line: 4, id: '', message: 'username is required' },
      { row: 4, line: 5, id: 'u1', message: 'username "u1" is already in row 1 (line 2)' },
      { row: 5, line: 6, id: '', message: 'a quoted cell (cell 1) is never closed' },
    ]);
  });
});
