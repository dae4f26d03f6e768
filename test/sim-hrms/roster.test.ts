import { describe, expect, it } from 'vitest';
import { defaultMapping, MSG, rosterFromCsv, startHrmsSim } from '../../src/sim/hrms/index.js';
import { alice, bob, pushPunches, user, useHrmsSim } from './helpers.js';

const start = useHrmsSim();

const messages = (r: { json: { Payload: Array<{ message: string }> } }) => r.json.Payload.map((p) => p.message);

describe('employees as the attendance roster', () => {
  it('onboard, punch accepted, disable, punch refused, history kept', async () => {
    const s = await start();
    expect((await user(s, alice)).json.status).toBe(true);
    const first = await pushPunches(s, [{ biometriccode: '101', logDate: '2025-03-01 08:00:00' }]);
    expect(messages(first)).toEqual([MSG.added]);

    expect((await user(s, { delete: 'true', username: 'alice' })).json.message).toBe('Employee disabled');
    const after = await pushPunches(s, [
      { biometriccode: '101', logDate: '2025-03-01 17:00:00' },
      // The punch already in the table, sent again: still a duplicate, not a refusal.
      { biometriccode: '101', logDate: '2025-03-01 08:00:00' },
      { biometriccode: '555', logDate: '2025-03-01 17:00:00' },
    ]);
    expect(messages(after)).toEqual([
      'Employee 101 is disabled: punch refused',
      MSG.duplicate,
      'Unknown biometric code 555',
    ]);
    expect(s.received().map((p) => p.outcome)).toEqual(['added', 'disabled', 'duplicate', 'unknown_code']);
    expect(s.attendance().map((p) => p.logDate)).toEqual(['2025-03-01 08:00:00']);
    expect(s.employees()[0]).toMatchObject({ status: 'blocked', biometricCode: '101' });
  });

  it('auto mode: no employee means no roster check; the first employee turns it on', async () => {
    const s = await start();
    expect(messages(await pushPunches(s, [{ biometriccode: '9', logDate: '2025-03-01 08:00:00' }]))).toEqual([
      MSG.added,
    ]);
    await user(s, bob);
    expect(messages(await pushPunches(s, [{ biometriccode: '9', logDate: '2025-03-01 09:00:00' }]))).toEqual([
      MSG.unknownCode('9'),
    ]);
  });

  it('roster off ignores employees entirely', async () => {
    const s = await start({ roster: 'off', employees: [{ ...alice, block: 1 }] });
    const r = await pushPunches(s, [
      { biometriccode: '101', logDate: '2025-03-01 08:00:00' },
      { biometriccode: '777', logDate: '2025-03-01 08:00:00' },
    ]);
    expect(messages(r)).toEqual([MSG.added, MSG.added]);
  });

  it('follows a biometric code change made through an update', async () => {
    const s = await start({ employees: [alice] });
    await user(s, { username: 'alice', biometriccode: '201' });
    const r = await pushPunches(s, [
      { biometriccode: '101', logDate: '2025-03-01 08:00:00' },
      { biometriccode: '201', logDate: '2025-03-01 08:00:00' },
    ]);
    expect(messages(r)).toEqual([MSG.unknownCode('101'), MSG.added]);
  });

  it('start employees: invalid ones throw, or are reported through onInvalidEmployee', async () => {
    await expect(startHrmsSim({ employees: [{ username: 'x', name: 'X' }] })).rejects.toThrow(
      /employees\[0\]: Validation failed: mandatory field Official Email/,
    );
    const bad: string[] = [];
    const s = await start({
      employees: [alice, { username: 'x', name: 'X', email: 'nope' }],
      onInvalidEmployee: (i, m) => bad.push(`${i} ${m}`),
    });
    expect(bad).toEqual(['1 Validation failed: email: data type must match email']);
    expect(s.employees().map((e) => e.fields.username)).toEqual(['alice']);
  });
});

describe('roster CSV', () => {
  it('splits quoted cells, doubled quotes, CRLF and blank lines, keeping line numbers; a bad line says why', () => {
    const rows = rosterFromCsv('\uFEFFa,b,c\r\n1,"x, ""y""",3\r\n\r\n4,"multi\nline",6\n"7,8,9\n', {});
    expect(rows).toEqual([
      { line: 2, record: { a: '1', b: 'x, "y"', c: '3' } },
      { line: 4, record: { a: '4', b: 'multi\nline', c: '6' } },
      { line: 6, record: {}, error: 'a quoted cell (cell 1) is never closed' },
    ]);
  });

  it('turns cells into the JSON values a client sends for each mapped type', () => {
    const rows = rosterFromCsv(
      'username,name,email,biometriccode,block,zone,dob\nann,Ann,ann@example.com,0042,1,,\n',
      defaultMapping(),
    );
    expect(rows).toEqual([
      {
        line: 2,
        record: { username: 'ann', name: 'Ann', email: 'ann@example.com', biometriccode: '0042', block: 1, zone: null },
      },
    ]);
  });

  it('seeds the roster and reset() restores it', async () => {
    const rows = rosterFromCsv('username,name,email,biometriccode\nann,Ann,ann@example.com,0042\n', defaultMapping());
    const s = await start({ employees: rows.map((r) => r.record), roster: 'employees' });
    expect(messages(await pushPunches(s, [{ biometriccode: '0042', logDate: '2025-03-01 08:00:00' }]))).toEqual([
      MSG.added,
    ]);
    await user(s, { delete: 'true', username: 'ann' });
    await user(s, bob);
    s.reset();
    expect(s.employees().map((e) => [e.fields.username, e.status])).toEqual([['ann', 'active']]);
    expect(s.received()).toEqual([]);
    expect(s.requests()).toBe(0);
  });
});
