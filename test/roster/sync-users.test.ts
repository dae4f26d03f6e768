/**
 * `terminals sync-users` against simulated ZK terminals (in-process, real journal): the roster
 * applies exactly, a dry run changes nothing, a second run changes nothing, leavers are backed up
 * before they go, administrators and strangers are left alone, and node-zklib (an independent
 * reader) sees the result.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { UserBackupStore } from '../../src/journal/user-backups.js';
import type { SimTemplate, SimUser } from '../../src/sim/terminal/index.js';
import { tempDir } from '../helpers/tmp.js';
import { usersOf, useUserSync } from './helpers.js';

const env = useUserSync();

const tpl = (userId: string, finger: number, seed: number): SimTemplate => ({
  userId,
  finger,
  template: Buffer.from(Array.from({ length: 700 + seed }, (_, i) => (i * 7 + seed) & 0xff)),
});

const GATE_USERS: SimUser[] = [
  { uid: 1, userId: '1001', name: 'Ann Admin', privilege: 14 },
  { uid: 2, userId: '1002', name: 'Bob', card: 0 },
  { uid: 3, userId: '1003', name: 'Cara', card: 111 },
  { uid: 5, userId: '1005', name: 'Dan', card: 555, password: '4321' },
  { uid: 6, userId: '9999', name: 'Stranger' },
  { uid: 7, userId: '1007', name: 'Eve' },
];

const ROSTER = [
  'Code,NAME,Card,Active,Department',
  '1001,Ann Admin,,1,IT',
  '1002,Robert,,yes,Ops',
  '1003,Cara,222,,Ops',
  '1004,Finn New,5551,true,Ops',
  '1005,Dan,,0,Ops',
  '1006,  Gail   New ,,,Ops',
  '1007,Eve,,,Ops',
  '1008,Old Leaver,,no,Ops',
];

const EXPECTED = [
  '1 1001 Ann Admin 0 14',
  '2 1002 Robert 0 0',
  '3 1003 Cara 222 0',
  '4 1004 Finn New 5551 0',
  '6 9999 Stranger 0 0',
  '7 1007 Eve 0 0',
  '8 1006 Gail New 0 0',
];

describe('terminals sync-users', () => {
  it('applies hires, renames, card changes and leavers exactly; strangers and admins stay; a second run changes nothing', async () => {
    const { gate } = await env.start({
      gate: { users: GATE_USERS, templates: [tpl('1005', 0, 1), tpl('1005', 3, 2), tpl('1007', 1, 3)] },
    });
    const roster = env.writeRoster(ROSTER);

    const first = await env.sync({ roster, json: true });
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    expect(usersOf(gate)).toEqual(EXPECTED);
    expect(gate.deviceEnabled()).toBe(true);
    expect(gate.refreshCount()).toBe(1);
    // The leaver's templates went with it; Eve's stayed.
    expect(gate.templates().map((t) => `${t.userId}/${t.finger}`)).toEqual(['1007/1']);

    const report = JSON.parse(first.out);
    const t = report.terminals[0];
    expect(t.counts).toMatchObject({ added: 2, updated: 2, removed: 1, kept: 2, leftAlone: 1, failed: 0 });
    expect(
      t.changes.map(
        (c: { action: string; code: string; uid: number; status: string }) =>
          `${c.action} ${c.code} ${c.uid} ${c.status}`,
      ),
    ).toEqual([
      'remove 1005 5 applied',
      'update 1002 2 applied',
      'update 1003 3 applied',
      'add 1004 4 applied',
      'add 1006 8 applied',
    ]);
    expect(t.changes[0]).toMatchObject({ reason: 'inactive', backedUpFingers: 2 });
    expect(t.changes[1]).toMatchObject({ fields: ['name'], before: { name: 'Bob', card: 0 } });
    expect(t.changes[2]).toMatchObject({ fields: ['card'], before: { name: 'Cara', card: 111 }, card: 222 });
    // No template bytes in any output.
    expect(first.out).not.toMatch(/template"\s*:/);

    const backup = new UserBackupStore(env.journal.db).latest('gate', '1005')!;
    expect(backup).toMatchObject({
      code: '1005',
      uid: 5,
      name: 'Dan',
      card: 555,
      fpVersion: '10',
      serial: 'SIM0000000001',
    });
    expect(backup.templates.map((x) => [x.finger, x.template.length])).toEqual([
      [0, 701],
      [3, 702],
    ]);

    const writes = gate.writeCount();
    const second = await env.sync({ roster });
    expect(second.code).toBe(0);
    expect(gate.writeCount()).toBe(writes);
    expect(second.out).toContain('gate (zk 127.0.0.1:');
    expect(second.out).toContain('0 added, 0 updated, 0 removed; 6 unchanged, 1 not in the roster (left alone)');
    expect(usersOf(gate)).toEqual(EXPECTED);
  });

  it('a dry run prints the plan and changes nothing', async () => {
    const { gate } = await env.start({ gate: { users: GATE_USERS } });
    const before = usersOf(gate);
    const run = await env.sync({ roster: env.writeRoster(ROSTER), dryRun: true });
    expect(run.code).toBe(0);
    expect(gate.writeCount()).toBe(0);
    expect(gate.refreshCount()).toBe(0);
    expect(gate.deviceEnabled()).toBe(true);
    expect(usersOf(gate)).toEqual(before);
    expect(run.out).toContain(
      'would add 2, update 2, remove 1; 2 unchanged, 1 not in the roster (left alone) (dry run: nothing changed)',
    );
    expect(run.out).toMatch(/\+ add +1004 +"Finn New" card 5551 \(uid 4\): dry run/);
    expect(run.out).toMatch(/~ update 1002 +name "Bob" -> "Robert" \(uid 2\): dry run/);
    expect(run.out).toMatch(/- remove 1005 +"Dan" \(inactive in the roster, uid 5\): dry run/);
    expect(new UserBackupStore(env.journal.db).list()).toEqual([]);
  });

  it('--remove-absent removes strangers but keeps administrators unless --include-admins', async () => {
    const { gate } = await env.start({
      gate: {
        users: [
          { uid: 1, userId: '1', name: 'Boss', privilege: 14 },
          { uid: 2, userId: '2', name: 'Temp' },
          { uid: 3, userId: '3', name: 'Kept' },
          { uid: 4, userId: '4', name: 'Other Boss', privilege: 14 },
        ],
      },
    });
    const roster = env.writeRoster(['code,name', '3,Kept']);
    const run = await env.sync({ roster, removeAbsent: true });
    expect(run.code).toBe(0);
    expect(gate.users().map((u) => u.userId)).toEqual(['1', '3', '4']);
    expect(run.out).toContain(
      '! keep   1            "Boss": administrator, not in the roster; not removed (--include-admins 1 removes it)',
    );
    // Named: only that administrator goes.
    const named = await env.sync({ roster, removeAbsent: true, includeAdmins: '4' });
    expect(named.code).toBe(0);
    expect(gate.users().map((u) => u.userId)).toEqual(['1', '3']);
    const again = await env.sync({ roster, removeAbsent: true, includeAdmins: true });
    expect(again.code).toBe(0);
    expect(gate.users().map((u) => u.userId)).toEqual(['3']);
    expect(new UserBackupStore(env.journal.db).list().map((b) => [b.code, b.reason])).toEqual([
      ['1', 'sync-users: not in the roster (--remove-absent)'],
      ['4', 'sync-users: not in the roster (--remove-absent)'],
      ['2', 'sync-users: not in the roster (--remove-absent)'],
    ]);
  });

  it('reports bad rows with their line, applies the rest, exits 65, and protects their users from --remove-absent', async () => {
    const { gate } = await env.start({
      gate: {
        users: [
          { uid: 1, userId: '7', name: 'Seven' },
          { uid: 2, userId: '8', name: 'Eight' },
        ],
      },
    });
    const roster = env.writeRoster([
      'code,name,card,active',
      '7,Seven Renamed,abc,1',
      '9,Nine,,',
      ',Nobody,,',
      '10,Ten,,maybe',
    ]);
    const run = await env.sync({ roster, removeAbsent: true });
    expect(run.code).toBe(65);
    expect(run.err).toContain(`${roster}:2: card "abc" is not a decimal number (row skipped)`);
    expect(run.err).toContain(`${roster}:4: code is empty (row skipped)`);
    expect(run.err).toContain(
      `${roster}:5: active "maybe" is not one of 1/0, true/false, yes/no, active/blocked (row skipped)`,
    );
    // Line 4 has no code: who is absent is not certain, so Eight stays; Seven (bad row) stays as it was.
    expect(run.err).toContain('nobody was removed as absent');
    expect(usersOf(gate)).toEqual(['1 7 Seven 0 0', '2 8 Eight 0 0', '3 9 Nine 0 0']);
  });

  it('a long name is cut between characters as a person reads them, never inside an accent or an emoji', async () => {
    const { gate, old } = await env.start({
      gate: { users: [] },
      old: { transport: 'udp', tcp: false, users: [] },
    });
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}'; // one emoji, 25 bytes
    const roster = env.writeRoster([
      'code,name',
      `1,Person \u015D 10 ${family} Family`,
      `2,${'x'.repeat(23)}e\u0301`,
      `3,${family}`,
    ]);
    const run = await env.sync({ roster });
    expect(run.code).toBe(0);
    expect(gate.users().map((u) => u.name)).toEqual([
      'Person \u015D 10',
      'x'.repeat(23),
      '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
    ]);
    // 8 bytes: the emoji alone is wider than the field, so its first code points are kept, not nothing.
    expect(old.users().map((u) => u.name)).toEqual(['Person', 'xxxxxxxx', '\u{1F468}']);
    // and a second run finds every name as it should be
    expect((await env.sync({ roster })).out).toContain('0 added, 0 updated, 0 removed; 3 unchanged');
  });

  it('an old-firmware terminal over UDP: numeric codes, 8-byte names, and still nothing on the second run', async () => {
    const { old } = await env.start({
      old: { transport: 'udp', tcp: false, users: [{ uid: 1, userId: '42', name: 'Zed' }] },
    });
    const roster = env.writeRoster(['code,name', '0042,Zed', '43,Bartholomew Long', 'EMP-1,Lettered']);
    const run = await env.sync({ roster });
    expect(run.code).toBe(1);
    expect(run.out).toContain('! refuse EMP-1        ');
    expect(run.out).toContain('this terminal stores numeric user ids only');
    expect(usersOf(old)).toEqual(['1 42 Zed 0 0', '2 43 Bartholo 0 0']);
    const writes = old.writeCount();
    expect((await env.sync({ roster })).out).toContain('0 added, 0 updated, 0 removed; 2 unchanged');
    expect(old.writeCount()).toBe(writes);
  });

  it('a full terminal: the plan (dry run too) says which hires do not fit and why; nothing is tried past its capacity', async () => {
    const { gate } = await env.start({
      gate: {
        users: [
          { uid: 1, userId: '1', name: 'A' },
          { uid: 2, userId: '9', name: 'Leaver' },
        ],
        userCapacity: 3,
      },
    });
    // The leaver's place is free once it is removed: two hires fit, the third does not.
    const roster = env.writeRoster(['code,name,active', '1,A,', '9,Leaver,0', '2,B,', '3,C,', '4,D,']);
    const dry = await env.sync({ roster, dryRun: true });
    expect(dry.code).toBe(1);
    expect(dry.out).toContain('would add 2, update 0, remove 1');
    expect(dry.out).toMatch(/! refuse 4 .*the terminal is full: it holds at most 3 users/);
    expect(dry.out).not.toMatch(/add +4 /);
    expect(gate.writeCount()).toBe(0);

    const run = await env.sync({ roster, json: true });
    expect(run.code).toBe(1);
    const t = JSON.parse(run.out).terminals[0];
    expect(t.changes.map((c: { code: string; status: string }) => `${c.code} ${c.status}`)).toEqual([
      '9 applied',
      '2 applied',
      '3 applied',
    ]);
    expect(t.refused).toEqual([expect.objectContaining({ code: '4', reason: expect.stringContaining('is full') })]);
    expect(gate.users().map((u) => u.userId)).toEqual(['1', '2', '3']);
    expect(gate.deviceEnabled()).toBe(true);
  });

  it('an unreachable terminal is reported (exit 75) and the others are still synced', async () => {
    const { gate } = await env.start({ gate: { users: [] } }, [
      { name: 'gone', kind: 'zk', host: '127.0.0.1', port: 1, transport: 'tcp', timeoutMs: 500 },
    ]);
    const run = await env.sync({ roster: env.writeRoster(['code,name', '1,A']) });
    expect(run.code).toBe(75);
    // In the status's words, with the setting to look at (terminals[1], after the gate).
    expect(run.out).toContain(
      'gone (zk 127.0.0.1:1): NOT REACHED: 127.0.0.1:1 refused the connection; nothing changed — check terminals[1].host and terminals[1].port',
    );
    expect(run.out).not.toMatch(/CONNECT\(1000\)|ECONNREFUSED/);
    expect(gate.users().map((u) => u.userId)).toEqual(['1']);
  });

  it('refuses a roster with no usable row (exit 65) without touching a terminal', async () => {
    const { gate } = await env.start({ gate: { users: [{ uid: 1, userId: '1', name: 'A' }] } });
    await expect(env.sync({ roster: env.writeRoster(['code,name']), removeAbsent: true })).rejects.toMatchObject({
      exitCode: 65,
      message: expect.stringContaining('no usable roster row; nothing done'),
    });
    await expect(env.sync({ roster: env.writeRoster(['id,fullname', '1,A']) })).rejects.toMatchObject({
      exitCode: 65,
      message: expect.stringContaining('the header has no "code" column (found: id, fullname)'),
    });
    expect(gate.writeCount()).toBe(0);
  });

  it('node-zklib, an independent reader, downloads the users as the roster says', async () => {
    const { gate } = await env.start({ gate: { users: GATE_USERS, faults: { pacingMs: 3 } } });
    expect((await env.sync({ roster: env.writeRoster(ROSTER) })).code).toBe(0);
    const dir = tempDir('punchgate-zklib-');
    const cwd = process.cwd();
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    process.chdir(dir.dir);
    try {
      type Zk = {
        createSocket(): Promise<void>;
        getUsers(): Promise<{ data: { uid: number; userId: string; name: string; cardno: number; role: number }[] }>;
        disconnect(): Promise<boolean>;
      };
      const ZKLib = createRequire(import.meta.url)('node-zklib') as new (
        ip: string,
        port: number,
        t: number,
        inport: number,
      ) => Zk;
      const zk = new ZKLib('127.0.0.1', gate.port, 5000, 0);
      await zk.createSocket();
      const { data } = await zk.getUsers();
      await zk.disconnect();
      expect(data.map((u) => `${u.uid} ${u.userId} ${u.name} ${u.cardno} ${u.role}`)).toEqual(EXPECTED);
      expect(fs.readdirSync(dir.dir)).toEqual([]);
    } finally {
      process.chdir(cwd);
      log.mockRestore();
      dir.cleanup();
    }
  });
});
