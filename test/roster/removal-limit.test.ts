/**
 * An HRMS (or a roster file) that lies must never empty the terminals: a list that suddenly shrank
 * to one person, or marks everyone blocked, would remove nearly everyone, and those people could
 * no longer punch. Over the limit (a tenth of a terminal's users, at least 3; or
 * terminalUsers.maxRemovals; or --max-removals) nobody is removed, the rest of the plan still goes,
 * the report says so, and the run ends with 65.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsUsers } from '../../src/hrms/users.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { Secrets } from '../../src/util/secrets.js';
import { useUserSync } from './helpers.js';

const env = useUserSync();
let hrms: HrmsSim | null = null;
let client: HrmsUsers | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
  await hrms?.stop();
  hrms = null;
});

const staff = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ uid: i + 1, userId: String(1001 + i), name: `Worker ${i + 1}` }));

const employee = (i: number, block: number) => ({
  username: `w${i}`,
  name: `Worker ${i}`,
  email: `w${i}@example.com`,
  biometriccode: String(1000 + i),
  block,
});

async function hrmsWith(employees: Record<string, unknown>[]): Promise<HrmsUsers> {
  hrms = await startHrmsSim({ tokens: ['t0k3n'], employees });
  client = new HrmsUsers({
    hrms: { ...env.config.hrms!, baseUrl: hrms.url },
    token: { get: () => 't0k3n' },
    secrets: new Secrets(),
  });
  return client;
}

describe('sync-users never empties a terminal on a roster that lost people', () => {
  it('an HRMS list that shrank to one person: with --remove-absent nobody is removed, exit 65, the report says why', async () => {
    const { gate } = await env.start({ gate: { users: staff(40) } });
    const c = await hrmsWith([{ ...employee(1, 0), name: 'Worker 1 Renamed' }]);
    const run = await env.sync({ fromHrms: true, removeAbsent: true }, { hrms: () => c });
    expect(run.code).toBe(65);
    expect(gate.users()).toHaveLength(40);
    // The rest of the plan still goes.
    expect(gate.users().find((u) => u.userId === '1001')?.name).toBe('Worker 1 Renamed');
    expect(run.out).toContain(
      `gate (zk 127.0.0.1:${gate.port}): 0 added, 1 updated, 0 removed; 0 unchanged, 0 not in the roster (left alone), 39 removals HELD BACK`,
    );
    expect(run.out).toContain(
      'REMOVALS HELD BACK: the roster would have removed 39 of the 40 users on this terminal (1002, 1003, 1004, 1005, 1006 and 34 more), more than the limit of 4 a run may remove; nobody was removed.',
    );
    expect(run.out).toContain('run again with --max-removals 39');
  });

  it('an HRMS that marks everyone blocked removes nobody, even without --remove-absent; the dry run says the same', async () => {
    const { gate } = await env.start({ gate: { users: staff(12) } });
    const c = await hrmsWith(Array.from({ length: 12 }, (_, i) => employee(i + 1, 1)));
    const dry = await env.sync({ fromHrms: true, dryRun: true, json: true }, { hrms: () => c });
    expect(dry.code).toBe(65);
    const held = JSON.parse(dry.out).terminals[0].heldRemovals;
    expect(held.limit).toBe(3);
    expect(held.removals).toHaveLength(12);
    const run = await env.sync({ fromHrms: true }, { hrms: () => c });
    expect(run.code).toBe(65);
    expect(gate.users()).toHaveLength(12);
    expect(run.out).toContain('0 added, 0 updated, 0 removed');
  });

  it('removals within the limit go; --max-removals and terminalUsers.maxRemovals move the limit', async () => {
    const { gate } = await env.start({ gate: { users: staff(10) } }, [], { terminalUsers: { maxRemovals: 5 } });
    const lines = ['code,name,active', ...staff(10).map((u, i) => `${u.userId},${u.name},${i < 6 ? 0 : 1}`)];
    const roster = env.writeRoster(lines);
    // Six leavers, the config allows five: nobody goes.
    const held = await env.sync({ roster });
    expect(held.code).toBe(65);
    expect(gate.users()).toHaveLength(10);
    expect(held.out).toContain('more than the limit of 5 a run may remove');
    // Checked, and meant: this run may remove six.
    const meant = await env.sync({ roster, maxRemovals: '6' });
    expect(meant.code).toBe(0);
    expect(gate.users().map((u) => u.userId)).toEqual(['1007', '1008', '1009', '1010']);
    await expect(env.sync({ roster, maxRemovals: 'all' })).rejects.toMatchObject({
      exitCode: 64,
      message: '--max-removals: expected a whole number of users (0 or more), found "all"',
    });
  });
});
