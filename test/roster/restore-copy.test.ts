/**
 * `terminals restore-user` and `terminals copy-templates` against simulated ZK terminals: a removed
 * user comes back with its templates, backups go after their retention, templates copied from one
 * terminal are served identically by another, and another fingerprint algorithm is refused.
 */
import { describe, expect, it } from 'vitest';
import { UserBackupStore } from '../../src/journal/user-backups.js';
import { listBackups } from '../../src/roster/backups.js';
import { runCopyTemplates } from '../../src/roster/zk/copy-templates.js';
import type { CopyOptions } from '../../src/roster/zk/copy-report.js';
import { runRestoreUser } from '../../src/roster/zk/restore-user.js';
import type { SimTemplate, TerminalSim } from '../../src/sim/terminal/index.js';
import { usersOf, useUserSync } from './helpers.js';

const env = useUserSync();

const tpl = (userId: string, finger: number, seed: number): SimTemplate => ({
  userId,
  finger,
  template: Buffer.from(Array.from({ length: 500 + seed * 13 }, (_, i) => (i * 11 + seed) & 0xff)),
});

const fingersOf = (sim: TerminalSim, codes?: string[]) =>
  sim
    .templates()
    .filter((t) => !codes || codes.includes(t.userId))
    .map((t) => `${t.userId}/${t.finger}/${t.template.toString('base64')}`)
    .sort();

async function restore(terminal: string, code: string) {
  const d = env.deps();
  d.output.code = await runRestoreUser(terminal, code, d);
  return d.output;
}

async function copy(opts: CopyOptions) {
  const d = env.deps();
  d.output.code = await runCopyTemplates(opts, d);
  return d.output;
}

describe('terminals restore-user', () => {
  it('puts a removed user back with its templates, then keeps the backup until the retention', async () => {
    const { gate } = await env.start({
      gate: {
        users: [
          { uid: 1, userId: '1', name: 'Stays' },
          { uid: 5, userId: '1005', name: 'Dan', card: 555, privilege: 0 },
        ],
        templates: [tpl('1005', 0, 1), tpl('1005', 9, 2), tpl('1', 2, 3)],
      },
    });
    const before = fingersOf(gate, ['1005']);
    expect((await env.sync({ roster: env.writeRoster(['code,name,active', '1005,Dan,0']) })).code).toBe(0);
    expect(usersOf(gate)).toEqual(['1 1 Stays 0 0']);
    expect(fingersOf(gate, ['1005'])).toEqual([]);

    const run = await restore('gate', '1005');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^gate: restored 1005 "Dan" \(uid 5\) with 2 fingerprint\(s\) from the backup of \d{4}-/);
    expect(usersOf(gate)).toEqual(['1 1 Stays 0 0', '5 1005 Dan 555 0']);
    expect(fingersOf(gate, ['1005'])).toEqual(before);
    expect(gate.deviceEnabled()).toBe(true);

    const list = env.deps();
    listBackups(undefined, true, list);
    const listed = JSON.parse(list.output.out);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ terminal: 'gate', code: '1005', name: 'Dan', fingers: 2 });
    expect(listed[0].restoredAt).toEqual(expect.any(Number));
    expect(list.output.out).not.toContain('template');

    // After the retention (default 90 days) the backup and its templates are gone.
    const start = Date.now();
    env.now = () => start + 91 * 86_400_000;
    const later = env.deps();
    listBackups(undefined, false, later);
    expect(later.output.out.trim().split('\n')).toHaveLength(1);
    expect(env.journal.db.prepare('SELECT count(*) AS n FROM user_backup_templates').get()).toEqual({ n: 0 });
    await expect(restore('gate', '1005')).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringContaining('no backup of code 1005 from gate'),
    });
  });

  it('gives the fingerprints back to a leaver the roster brought back, keeping the new record', async () => {
    const { gate } = await env.start({
      gate: { users: [{ uid: 3, userId: '7', name: 'Back' }], templates: [tpl('7', 1, 4)] },
    });
    await env.sync({ roster: env.writeRoster(['code,name,active', '7,Back,0']) });
    await env.sync({ roster: env.writeRoster(['code,name,card', '7,Back Again,99']) });
    expect(usersOf(gate)).toEqual(['1 7 Back Again 99 0']);
    const run = await restore('gate', '7');
    expect(run.code).toBe(0);
    expect(run.out).toContain('gate: fingerprints restored to 7 "Back Again" (uid 1) with 1 fingerprint(s)');
    expect(usersOf(gate)).toEqual(['1 7 Back Again 99 0']);
    expect(fingersOf(gate)).toEqual([`7/1/${tpl('7', 1, 4).template.toString('base64')}`]);
  });

  it('refuses templates taken with another fingerprint algorithm, changing nothing', async () => {
    const { gate } = await env.start({ gate: { users: [] } });
    new UserBackupStore(env.journal.db).save({
      terminal: 'gate',
      serial: 'OLD',
      fpVersion: '9',
      code: '5',
      uid: 5,
      name: 'Old Algo',
      card: 0,
      privilege: 0,
      reason: 'test',
      templates: [{ finger: 0, valid: 1, template: Buffer.alloc(300, 1) }],
    });
    await expect(restore('gate', '5')).rejects.toMatchObject({
      exitCode: 1,
      message:
        'gate uses fingerprint algorithm 10, the backup of 5 was taken with 9: its templates cannot be restored here; nothing changed',
    });
    expect(gate.writeCount()).toBe(0);
  });
});

describe('terminals copy-templates', () => {
  const SOURCE = {
    users: [
      { uid: 1, userId: '1001', name: 'Ann', card: 11 },
      { uid: 2, userId: '1002', name: 'Bob' },
      { uid: 3, userId: '1003', name: 'No Fingers' },
      { uid: 4, userId: '1004', name: 'Admin', privilege: 14 },
    ],
    templates: [tpl('1001', 0, 1), tpl('1001', 5, 2), tpl('1002', 1, 3), tpl('1004', 2, 4)],
  };

  it('copies users and templates; the targets serve them identically; a second run and a dry run change nothing', async () => {
    const sims = await env.start({
      enrol: SOURCE,
      door: {
        users: [{ uid: 1, userId: '1002', name: 'Robert (door)', privilege: 14 }],
        templates: [tpl('1002', 1, 9)],
      },
      gate: { users: [] },
    });
    const dry = await copy({ from: 'enrol', to: ['door', 'gate'], dryRun: true });
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('door (zk 127.0.0.1:');
    expect(dry.out).toContain('would add 2 user(s), fingerprints for 1 existing user(s); 0 unchanged');
    expect(sims.door.writeCount() + sims.gate.writeCount()).toBe(0);

    const run = await copy({ from: 'enrol', to: ['door', 'gate'], json: true });
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.out);
    expect(
      report.terminals[0].changes.map(
        (c: { action: string; code: string; uid: number; fingers: number[]; status: string }) =>
          `${c.action} ${c.code} ${c.uid} ${c.fingers} ${c.status}`,
      ),
    ).toEqual(['add 1001 2 0,5 applied', 'fingers 1002 1 1 applied', 'add 1004 3 2 applied']);
    expect(run.out).not.toMatch(/template/i);

    const copied = ['1001', '1002', '1004'];
    expect(fingersOf(sims.door, copied)).toEqual(fingersOf(sims.enrol, copied));
    expect(fingersOf(sims.gate)).toEqual(fingersOf(sims.enrol, copied));
    // The door's own record and privilege stay; new users are normal users.
    expect(usersOf(sims.door)).toEqual(['1 1002 Robert (door) 0 14', '2 1001 Ann 11 0', '3 1004 Admin 0 0']);
    expect(usersOf(sims.gate)).toEqual(['1 1001 Ann 11 0', '2 1002 Bob 0 0', '3 1004 Admin 0 0']);
    expect(sims.door.deviceEnabled() && sims.gate.deviceEnabled()).toBe(true);

    const writes = sims.door.writeCount() + sims.gate.writeCount();
    const again = await copy({ from: 'enrol', to: ['door', 'gate'] });
    expect(again.code).toBe(0);
    expect(again.out).toContain('added 0 user(s), fingerprints for 0 existing user(s); 3 unchanged');
    expect(sims.door.writeCount() + sims.gate.writeCount()).toBe(writes);
  });

  it('refuses a target with another fingerprint algorithm, and reports an unknown --code', async () => {
    const sims = await env.start({ enrol: SOURCE, old: { users: [], fpVersion: '9' }, gate: { users: [] } });
    const run = await copy({ from: 'enrol', to: ['old', 'gate'], code: ['1002', '4711'] });
    expect(run.code).toBe(1);
    expect(run.out).toMatch(
      /old \(zk 127\.0\.0\.1:\d+\): REFUSED: old uses fingerprint algorithm 9, the source 10: templates cannot be copied between them; nothing copied/,
    );
    expect(run.err).toContain('--code 4711: no user with fingerprints on enrol');
    expect(sims.old.writeCount()).toBe(0);
    expect(usersOf(sims.gate)).toEqual(['1 1002 Bob 0 0']);
    const only = await copy({ from: 'enrol', to: ['gate'], code: ['4711'] });
    expect(only.code).toBe(65);
  });
});
