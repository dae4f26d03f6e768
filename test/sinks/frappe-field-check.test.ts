import { writeFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Journal } from '../../src/journal/journal.js';
import { startFrappeSim, type FrappeSim } from '../../src/sim/frappe/index.js';
import type { FrappeSimOptions } from '../../src/sim/frappe/types.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A Frappe sink's employeeFieldname with a typo was found only when the first batch failed
 * (MariaDB's 1054 as HTTP 500). `punchgate check` reads one Employee with that field (Frappe's
 * REST API, read only) and says the setting and the fix; nothing is written to the site.
 */
describe('punchgate check of a Frappe sink employeeFieldname', () => {
  const tmp = tempDir('punchgate-frappe-field-');
  let sim: FrappeSim | undefined;
  beforeAll(() => {
    writeFileSync(tmp.path('key'), 'k1\n');
    writeFileSync(tmp.path('secret'), 'zzSecret9\n');
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
  });
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
  });

  const ANA = { name: 'HR-EMP-00001', employee_name: 'Ana', fields: { attendance_device_id: '1001' } };

  const check = async (sink: Record<string, unknown>, site: Partial<FrappeSimOptions> = {}) => {
    sim = await startFrappeSim({ keys: [{ key: 'k1', secret: 'zzSecret9' }], employees: [ANA], ...site });
    const file = tmp.path('punchgate.yaml');
    const frappe = { name: 'frappe-hr', kind: 'frappe', baseUrl: sim.url, apiKeyFile: 'key', apiSecretFile: 'secret' };
    writeFileSync(
      file,
      stringify({
        site: 'plant-a',
        journal: { path: 'journal.db' },
        status: { listen: false },
        sinks: [{ ...frappe, ...sink }],
        terminals: [{ name: 'gate', kind: 'zk', host: '127.0.0.1', port: 9 }],
      }),
    );
    const r = await runPunchgate(['--config', file, 'check', '--json']);
    const out = JSON.parse(r.stdout) as {
      checks: Array<{ name: string; status: string; detail: string; fix?: string }>;
    };
    const line = out.checks.find((c) => c.name === 'sink frappe-hr');
    if (!line) throw new Error(`no sink line: ${r.stdout}`);
    // Read only: no check-in made, whatever the answer.
    expect(sim.checkins()).toEqual([]);
    expect(sim.stats().checkinCalls).toBe(0);
    expect(JSON.stringify(line)).not.toContain('zzSecret9');
    return line;
  };

  it("warns, naming them, of codes that more than one Employee holds (a leaver's code given again): Frappe gives their check-ins to one of them", async () => {
    const line = await check(
      {},
      {
        employees: [
          ANA,
          { name: 'HR-EMP-00002', employee_name: 'Ben', status: 'Left', fields: { attendance_device_id: '1042' } },
          { name: 'HR-EMP-00003', employee_name: 'Cy', fields: { attendance_device_id: '1042' } },
          { name: 'HR-EMP-00004', employee_name: 'Di', fields: { attendance_device_id: '' } },
          { name: 'HR-EMP-00005', employee_name: 'Ed', fields: { attendance_device_id: '' } },
        ],
      },
    );
    expect(line.status, line.detail).toBe('warn');
    expect(line.detail).toContain(
      '1 code is in attendance_device_id of more than one Employee (1042: HR-EMP-00002 (Left), HR-EMP-00003)',
    );
    expect(line.detail).not.toContain('Ben');
    expect(line.fix).toBe(
      'give each Employee a code of its own in attendance_device_id (clear it on Employees who have left), then check again',
    );
  });

  it('passes with the field found on an Employee', async () => {
    const line = await check({});
    expect(line.status, line.detail).toBe('pass');
    expect(line.detail).toContain("found Employee's field attendance_device_id (one Employee read)");
  }, 30_000);

  it.each([13, 15] as const)(
    'fails with a typo in the field, naming the setting and the fix (Frappe %s)',
    async (version) => {
      const line = await check({ employeeFieldname: 'attendance_device_idd' }, { version });
      expect(line.status, line.detail).toBe('fail');
      expect(line.detail).toContain("Frappe's Employee has no field attendance_device_idd");
      expect(line.detail).toContain('every check-in would be refused');
      expect(line.fix).toMatch(/^set sinks\[frappe-hr\]\.employeeFieldname to the Employee field that holds/);
    },
    30_000,
  );

  it('a custom field an Employee has passes; a site without Employees, or a user who may not read them, is said as not checked', async () => {
    const custom = await check(
      { employeeFieldname: 'custom_badge' },
      { employees: [{ ...ANA, fields: { custom_badge: 'B-7' } }] },
    );
    expect(custom.status, custom.detail).toBe('pass');
    expect(custom.detail).toContain("found Employee's field custom_badge");

    const empty = await check({}, { employees: [] });
    expect(empty.status, empty.detail).toBe('pass');
    expect(empty.detail).toContain(
      'employeeFieldname attendance_device_id not checked: the site has no Employee yet to read it from',
    );

    const unread = await check({}, { faults: { noEmployeeRead: true } });
    expect(unread.status, unread.detail).toBe('pass');
    expect(unread.detail).toContain('employeeFieldname attendance_device_id not checked: Frappe refused the API user');
  }, 60_000);
});
