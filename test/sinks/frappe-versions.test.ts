import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PunchResult } from '../../src/hrms/answer.js';
import {
  FRAPPE_VERSIONS,
  startFrappeSim,
  type FrappeLanguage,
  type FrappeSim,
  type FrappeVersion,
} from '../../src/sim/frappe/index.js';
import { FrappeSender } from '../../src/sinks/frappe/sender.js';
import type { SinkPunch } from '../../src/sinks/types.js';

/**
 * A punch Frappe already has is known as such on every Frappe version and in every language:
 * hrms validate_duplicate_log's words are translated, and frappe.get_desk_link's path changed
 * from v13 (#Form/...) to v14/v15 (/app/Form/...) to v16 (/desk/employee-checkin/...). Read as a
 * plain refusal, a punch that is in Frappe would be refused again at every retry and end `dead`.
 */
const KEY = 'vkey0123456789a';
const SECRET = 'vsecret98765432';
const TOKEN = `${KEY}:${SECRET}`;

const sims: FrappeSim[] = [];
beforeAll(async () => {
  for (const version of FRAPPE_VERSIONS)
    for (const language of ['en', 'de'] as const)
      sims.push(
        await startFrappeSim({
          keys: [{ key: KEY, secret: SECRET }],
          version,
          language,
          employees: [{ employee_name: 'Anna', fields: { attendance_device_id: '7' } }],
        }),
      );
});
afterAll(async () => {
  await Promise.all(sims.map((s) => s.stop()));
});

const punch: SinkPunch = {
  devicelogId: 'v-1',
  biometricCode: '7',
  logTime: '2026-11-02 08:00:00',
  terminal: 'gate',
  device: '',
  timezone: 'UTC',
  direction: 'in',
};

async function sendTwice(sim: FrappeSim): Promise<[PunchResult, PunchResult]> {
  const s = new FrappeSender(
    { baseUrl: sim.url, method: 'hrms', employeeFieldname: 'attendance_device_id', concurrency: 1, timeoutMs: 20_000 },
    { name: 'frappe-hr', connectTimeoutMs: 5000, env: {} },
  );
  try {
    const out: PunchResult[] = [];
    for (let i = 0; i < 2; i++) {
      const a = await s.send([punch], { token: TOKEN });
      if (a.kind !== 'answered') throw new Error(`not answered: ${JSON.stringify(a)}`);
      out.push(a.results[0]!);
    }
    return [out[0]!, out[1]!];
  } finally {
    await s.close();
  }
}

describe('Frappe duplicate refusals across versions and languages', () => {
  it('the second send of one punch is a duplicate on v13, v14, v15 and v16, in English and in German', async () => {
    const seen: Array<[FrappeVersion, FrappeLanguage, boolean]> = [];
    let i = 0;
    for (const version of FRAPPE_VERSIONS)
      for (const language of ['en', 'de'] as const) {
        const sim = sims[i++]!;
        const [first, again] = await sendTwice(sim);
        expect(first.status).toBe(true);
        expect(again.status).toBe(false);
        seen.push([version, language, again.duplicate === true]);
        expect(sim.checkins()).toHaveLength(1);
      }
    expect(seen.filter(([, , dup]) => !dup)).toEqual([]);
  });

  it('the simulator sends the desk link of each version', async () => {
    const { deskLink } = await import('../../src/sim/frappe/messages.js');
    expect(deskLink('Employee Checkin', 'X-1', 13)).toContain('href="#Form/Employee Checkin/X-1"');
    expect(deskLink('Employee Checkin', 'X-1', 15)).toContain('href="/app/Form/Employee Checkin/X-1"');
    expect(deskLink('Employee Checkin', 'X-1', 16)).toContain('href="/desk/employee-checkin/X-1"');
  });
});
