/**
 * User sync when things break: a write failing midway (the connection cut, or the write refused),
 * a backup the journal cannot take. The terminal is always enabled again, and the report says
 * what was and was not applied.
 */
import { describe, expect, it } from 'vitest';
import type { BackupSink } from '../../src/roster/adapter.js';
import { syncTerminal } from '../../src/roster/sync-users.js';
import { ZkSyncAdapter } from '../../src/roster/zk/zk-sync.js';
import { ZkUserTerminal } from '../../src/roster/zk/zk-terminal.js';
import type { ZkTerminalConfig } from '../../src/config/terminals.js';
import { usersOf, useUserSync } from './helpers.js';

const env = useUserSync();

const USERS = [
  { uid: 1, userId: '1', name: 'Leaver' },
  { uid: 2, userId: '2', name: 'Old Two' },
  { uid: 3, userId: '3', name: 'Old Three' },
];
const ROSTER = ['code,name,active', '1,Leaver,0', '2,New Two,', '3,New Three,', '4,Four,', '5,Five,'];

type JsonChange = { action: string; code: string; status: string; error?: string };
const summary = (out: string) =>
  (JSON.parse(out).terminals[0].changes as JsonChange[]).map((c) => `${c.action} ${c.code} ${c.status}`);

describe('sync-users when a write fails midway', () => {
  it('the connection cut at the third write: the terminal is enabled again, the report tells applied from not, a rerun finishes', async () => {
    const { gate } = await env.start({
      gate: { users: USERS, faults: { failWriteAfter: 2, failWriteMode: 'disconnect' } },
    });
    const roster = env.writeRoster(ROSTER);
    const run = await env.sync({ roster, json: true });
    expect(run.code).toBe(75);
    expect(summary(run.out)).toEqual([
      'remove 1 applied',
      'update 2 applied',
      'update 3 failed',
      'add 4 not-attempted',
      'add 5 not-attempted',
    ]);
    const changes = JSON.parse(run.out).terminals[0].changes as JsonChange[];
    expect(changes[2]!.error).toMatch(/^no answer \(.*\); the terminal does not hold it$/);
    expect(changes[3]!.error).toMatch(/^not attempted: the connection broke at an earlier change/);
    expect(gate.deviceEnabled()).toBe(true);
    expect(gate.refreshCount()).toBe(1);
    expect(usersOf(gate)).toEqual(['2 2 New Two 0 0', '3 3 Old Three 0 0']);

    const rerun = await env.sync({ roster, json: true });
    expect(rerun.code).toBe(0);
    expect(summary(rerun.out)).toEqual(['update 3 applied', 'add 4 applied', 'add 5 applied']);
    expect(usersOf(gate)).toEqual(['1 4 Four 0 0', '2 2 New Two 0 0', '3 3 New Three 0 0', '4 5 Five 0 0']);
    expect((await env.sync({ roster, json: true })).out).toContain('"changes": []');
  });

  it('a write refused (ACK_ERROR) fails alone; the others are applied (exit 1)', async () => {
    const { gate } = await env.start({ gate: { users: USERS, faults: { failWriteAfter: 1, failWriteMode: 'error' } } });
    const run = await env.sync({ roster: env.writeRoster(ROSTER), json: true });
    expect(run.code).toBe(1);
    expect(summary(run.out)).toEqual([
      'remove 1 applied',
      'update 2 failed',
      'update 3 applied',
      'add 4 applied',
      'add 5 applied',
    ]);
    expect(gate.deviceEnabled()).toBe(true);
    expect(usersOf(gate)).toEqual(['2 2 Old Two 0 0', '3 3 New Three 0 0', '4 4 Four 0 0', '5 5 Five 0 0']);
  });

  it('a user whose backup cannot be saved is not removed', async () => {
    const { gate } = await env.start({ gate: { users: USERS } });
    const cfg = env.config.terminals[0] as ZkTerminalConfig;
    const refusing: BackupSink = {
      save() {
        throw new Error('SQLITE_FULL: database or disk is full');
      },
    };
    const report = await syncTerminal(
      new ZkSyncAdapter(new ZkUserTerminal(cfg)),
      [{ code: '1', name: 'Leaver', card: null, active: false, where: 'x:2' }],
      { codes: new Set(), unknown: false },
      { dryRun: false, removeAbsent: false, includeAdmins: false, maxRemovals: 'default' },
      refusing,
    );
    expect(report.changes.map((c) => c.result)).toEqual([
      {
        status: 'failed',
        error: 'the backup could not be saved in the journal (SQLITE_FULL: database or disk is full); not removed',
      },
    ]);
    expect(gate.users().map((u) => u.userId)).toEqual(['1', '2', '3']);
    expect(gate.deviceEnabled()).toBe(true);
  });
});
