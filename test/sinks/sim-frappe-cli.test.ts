import { writeFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFrappeSimOptions, runSimFrappe, type SimFrappeCliOptions } from '../../src/cli/commands/sim-frappe.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('pg-sim-frappe-');
afterAll(() => dir.cleanup());
const KEY = 'simkey-0123456';
const SECRET = 'simsecret-abcdef';
const base: SimFrappeCliOptions = { host: '127.0.0.1', port: '0', key: [], shiftType: [], refuse: [] };
const METHOD = '/api/method/hrms.hr.doctype.employee_checkin.employee_checkin.add_log_based_on_employee_field';

describe('punchgate sim frappe', () => {
  it("answers with Frappe's JSON shapes and status codes, logs without the key, stops when asked", async () => {
    const employees = dir.path('employees.csv');
    writeFileSync(
      employees,
      'attendance_device_id,employee_name,status,default_shift\n101,Ann,Active,\n102,Bob,Inactive,\n103,Cy,Active,Night\n',
    );
    let out = '';
    let err = '';
    let stop: () => void = () => {};
    const until = new Promise<void>((r) => (stop = r));
    const run = runSimFrappe(
      { ...base, key: [`${KEY}:${SECRET}`], employees, shiftType: ['Night:strict'] },
      { out: (t) => (out += t), err: (t) => (err += t), until },
    );
    await expect
      .poll(() => out, { timeout: 20_000 })
      .toMatch(/^Frappe simulator listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    const url = out.trim().split(' ').pop()!;
    const post = async (body: Record<string, unknown>, auth = `token ${KEY}:${SECRET}`) => {
      const res = await request(url + METHOD, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
    };
    const ok = await post({
      employee_field_value: '101',
      timestamp: '2026-11-02 08:00:00',
      device_id: 'gate',
      log_type: 'IN',
    });
    expect(ok.status).toBe(200);
    expect(ok.json.message).toMatchObject({ doctype: 'Employee Checkin', time: '2026-11-02 08:00:00', log_type: 'IN' });

    const dup = await post({
      employee_field_value: '101',
      timestamp: '2026-11-02 08:00:00',
      device_id: 'gate',
      log_type: 'IN',
    });
    expect(dup.status).toBe(417);
    expect(dup.json.exc_type).toBe('ValidationError');
    // report_error's shape: _server_messages is a JSON string of an array of JSON strings.
    const msgs = (JSON.parse(dup.json._server_messages as string) as string[]).map(
      (m) => (JSON.parse(m) as { message: string }).message,
    );
    expect(msgs[0]).toMatch(/^This employee already has a log with the same timestamp\.<Br><a href=/);

    expect((await post({ employee_field_value: '102', timestamp: '2026-11-02 08:00:00' })).json.exc_type).toBe(
      'InactiveEmployeeStatusError',
    );
    const strict = await post({ employee_field_value: '103', timestamp: '2026-11-02 08:00:00' });
    expect(strict.status).toBe(417);
    expect(strict.json._server_messages).toContain('Log Type is required for check-ins falling in the shift: Night.');
    expect(
      (await post({ employee_field_value: '101', timestamp: '2026-11-02 09:00:00' }, `token ${KEY}:nope`)).status,
    ).toBe(401);
    expect((await post({ employee_field_value: '101', timestamp: '2026-11-02 09:00:00' }, '')).status).toBe(403);

    stop();
    expect(await run).toBe(0);
    expect(err).toMatch(
      /POST \/api\/method\/hrms\.hr\.doctype\.employee_checkin\.employee_checkin\.add_log_based_on_employee_field -> 200 EMP-CKIN-/,
    );
    expect(err).toContain('Frappe simulator stopped');
    expect(out + err).not.toContain(SECRET);
  });

  it('refuses a malformed key without echoing it, and needs at least one', () => {
    expect(() => buildFrappeSimOptions(base, () => {})).toThrow(/--key KEY:SECRET/);
    const file = dir.path('keys');
    writeFileSync(file, `# keys\n${KEY}:${SECRET}\n${SECRET}\n`);
    try {
      buildFrappeSimOptions({ ...base, keyFile: file }, () => {});
      expect.unreachable();
    } catch (e) {
      expect(String(e)).toMatch(/keys:3: expected "API_KEY:API_SECRET"/);
      expect(String(e)).not.toContain(SECRET);
    }
  });

  it('takes the fault switches', () => {
    const o = buildFrappeSimOptions(
      {
        ...base,
        key: ['a:b'],
        down: true,
        lockTimeouts: '2',
        rateLimited: '3',
        lockStatus: '500',
        errorRate: '0.1',
        refuse: ['7,8'],
        forbidCheckins: true,
        geolocationTracking: true,
        app: 'erpnext',
        frappeVersion: '16',
        language: 'de',
      },
      () => {},
    );
    expect(o.faults).toEqual({
      down: true,
      rateLimited: 3,
      lockTimeouts: 2,
      lockStatus: 500,
      errorRate: 0.1,
      refuseCodes: ['7', '8'],
      noPermission: true,
      geolocationTracking: true,
    });
    expect(o.apps).toEqual(['erpnext']);
    expect([o.version, o.language]).toEqual([16, 'de']);
    expect(() => buildFrappeSimOptions({ ...base, key: ['a:b'], frappeVersion: '12' }, () => {})).toThrow(
      /--frappe-version/,
    );
    expect(() => buildFrappeSimOptions({ ...base, key: ['a:b'], language: 'fr' }, () => {})).toThrow(/--language/);
    expect(() => buildFrappeSimOptions({ ...base, key: ['a:b'], lockRate: '2' }, () => {})).toThrow(/--lock-rate/);
  });
});
