/**
 * `sync-users --from-hrms`: the roster is the HRMS simulator's employee fetch, read through
 * terminalUsers.fields (default: biometriccode, name, and `!block` for the active flag).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsUsers } from '../../src/hrms/users.js';
import { defaultMapping, startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { Secrets } from '../../src/util/secrets.js';
import { usersOf, useUserSync } from './helpers.js';

const env = useUserSync();
let hrms: HrmsSim | null = null;
afterEach(async () => {
  await hrms?.stop();
  hrms = null;
});

const employee = (username: string, extra: Record<string, unknown>) => ({
  username,
  name: username.toUpperCase(),
  email: `${username}@example.com`,
  ...extra,
});

describe('sync-users --from-hrms', () => {
  it('adds active employees, removes blocked ones, skips those without a code, reads department-filtered fetches', async () => {
    hrms = await startHrmsSim({
      tokens: ['t0k3n'],
      employees: [
        employee('ann', { biometriccode: '2001', block: 0, department: 'Plant A' }),
        employee('bob', { biometriccode: '2002', block: 1, department: 'Plant A' }),
        employee('cy', { block: 0, department: 'Plant A' }),
        employee('dee', { biometriccode: '2004', block: 0, department: 'Head Office' }),
      ],
    });
    const { gate } = await env.start({ gate: { users: [{ uid: 1, userId: '2002', name: 'BOB' }] } }, [], {
      terminalUsers: { filter: { department: 'Plant A' } },
    });
    const client = new HrmsUsers({
      hrms: { ...env.config.hrms!, baseUrl: hrms.url },
      token: { get: () => 't0k3n' },
      secrets: new Secrets(),
    });
    try {
      const run = await env.sync({ fromHrms: true }, { hrms: () => client });
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expect(run.out).toContain('roster the HRMS: 2 people, 1 without a code (skipped)');
      expect(usersOf(gate)).toEqual(['2 2001 ANN 0 0']);
    } finally {
      await client.close();
    }
  });

  it('status words in an inverted field mean what they say: "Blocked" is a leaver, "Active" is not', async () => {
    // An instance whose "blocked" column holds a flag for some and a status word for others.
    hrms = await startHrmsSim({
      tokens: ['t0k3n'],
      mapping: { ...defaultMapping(), blocked: { field: 'Blocked', type: 'string' } },
      employees: [
        employee('ann', { biometriccode: '2001', blocked: 'Active' }),
        employee('bob', { biometriccode: '2002', blocked: 'Blocked' }),
        employee('cy', { biometriccode: '2003', blocked: 'disabled' }),
        employee('dee', { biometriccode: '2004', blocked: 'yes' }),
        employee('eve', { biometriccode: '2005', blocked: '0' }),
      ],
    });
    const users = ['2001', '2002', '2003', '2004', '2005'].map((id, i) => ({
      uid: i + 1,
      userId: id,
      name: ['ANN', 'BOB', 'CY', 'DEE', 'EVE'][i]!,
    }));
    const { gate } = await env.start({ gate: { users } }, [], { terminalUsers: { fields: { active: '!blocked' } } });
    const client = new HrmsUsers({
      hrms: { ...env.config.hrms!, baseUrl: hrms.url },
      token: { get: () => 't0k3n' },
      secrets: new Secrets(),
    });
    try {
      const run = await env.sync({ fromHrms: true }, { hrms: () => client });
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expect(usersOf(gate)).toEqual(['1 2001 ANN 0 0', '5 2005 EVE 0 0']);
    } finally {
      await client.close();
    }
  });

  it('a refused token ends with 77 and changes nothing', async () => {
    hrms = await startHrmsSim({ tokens: ['right'] });
    const { gate } = await env.start({ gate: { users: [{ uid: 1, userId: '1', name: 'A' }] } });
    const client = new HrmsUsers({
      hrms: { ...env.config.hrms!, baseUrl: hrms.url },
      token: { get: () => 'wrong' },
      secrets: new Secrets(),
    });
    try {
      await expect(env.sync({ fromHrms: true, removeAbsent: true }, { hrms: () => client })).rejects.toMatchObject({
        exitCode: 77,
      });
      expect(gate.writeCount()).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('an HRMS that cannot be reached ends with 75, says what to check, and changes nothing', async () => {
    hrms = await startHrmsSim({ tokens: ['right'] });
    const url = hrms.url;
    await hrms.stop();
    hrms = null;
    const { gate } = await env.start({ gate: { users: [{ uid: 1, userId: '1', name: 'A' }] } });
    const client = new HrmsUsers({
      hrms: { ...env.config.hrms!, baseUrl: url },
      token: { get: () => 'right' },
      secrets: new Secrets(),
    });
    try {
      await expect(env.sync({ fromHrms: true, removeAbsent: true }, { hrms: () => client })).rejects.toMatchObject({
        exitCode: 75,
        message: expect.stringMatching(
          /^the HRMS employee fetch failed: cannot reach the HRMS at .* — check hrms\.baseUrl, the network route/,
        ),
      });
      expect(gate.writeCount()).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('a code or name field no employee has: said with the fields they do have, nothing changed (exit 65)', async () => {
    hrms = await startHrmsSim({
      tokens: ['t0k3n'],
      employees: [
        employee('ann', { biometriccode: '2001', block: 0 }),
        employee('bob', { biometriccode: '2002', block: 1 }),
      ],
    });
    const { gate } = await env.start({ gate: { users: [{ uid: 1, userId: '2002', name: 'BOB' }] } }, [], {
      terminalUsers: { fields: { code: 'biometric_code' } },
    });
    const client = new HrmsUsers({
      hrms: { ...env.config.hrms!, baseUrl: hrms.url },
      token: { get: () => 't0k3n' },
      secrets: new Secrets(),
    });
    try {
      await expect(env.sync({ fromHrms: true, removeAbsent: true }, { hrms: () => client })).rejects.toMatchObject({
        exitCode: 65,
        message: expect.stringMatching(
          /terminalUsers\.fields\.code: no employee record of the HRMS has a field "biometric_code" \(the records hold .*"biometriccode".*\): set terminalUsers\.fields\.code to the field that holds each person's terminal code/,
        ),
      });
      expect(gate.writeCount()).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('an active field no employee has: the others are applied, no leaver is assumed, exit 65 says why', async () => {
    hrms = await startHrmsSim({
      tokens: ['t0k3n'],
      employees: [employee('ann', { biometriccode: '2001', block: 0 })],
    });
    const { gate } = await env.start({ gate: { users: [] } }, [], {
      terminalUsers: { fields: { active: '!blocked' } },
    });
    const client = new HrmsUsers({
      hrms: { ...env.config.hrms!, baseUrl: hrms.url },
      token: { get: () => 't0k3n' },
      secrets: new Secrets(),
    });
    try {
      const run = await env.sync({ fromHrms: true }, { hrms: () => client });
      expect(run.code).toBe(65);
      expect(run.err).toContain('terminalUsers.fields.active: no employee record of the HRMS has a field "blocked"');
      expect(usersOf(gate)).toEqual(['1 2001 ANN 0 0']);
    } finally {
      await client.close();
    }
  });
});
