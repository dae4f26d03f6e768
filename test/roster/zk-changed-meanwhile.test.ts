/**
 * A ZK terminal whose user table changes between the read a plan is made from and the writes (a
 * person enrolled at the keypad, another tool writing users): a new user is written at the uid the
 * plan chose, and USER_WRQ writes over whoever now holds it, whose fingerprints then open the door
 * as the new code. The writes are checked against the table as it is once the device is disabled.
 */
import { describe, expect, it } from 'vitest';
import { planTerminal } from '../../src/roster/plan.js';
import { syncAdapterFor } from '../../src/roster/terminals.js';
import type { BackupSink } from '../../src/roster/adapter.js';
import { ZkClient } from '../../src/sources/zk/client/index.js';
import { encodeUserRecord } from '../../src/sources/zk/protocol/index.js';
import { usersOf, useUserSync } from './helpers.js';

const env = useUserSync();
const noBackups: BackupSink = { save: () => undefined } as unknown as BackupSink;

/** Another tool on the same terminal writes a user (the stand-in for an enrolment at its keypad). */
async function enrolMeanwhile(port: number, uid: number, userId: string, name: string): Promise<void> {
  const zk = new ZkClient({ host: '127.0.0.1', port, transport: 'tcp', timeoutMs: 5000 });
  await zk.connect();
  try {
    await zk.writeUser(encodeUserRecord({ uid, privilege: 0, password: '', name, card: 0, group: 1, userId }, 72));
  } finally {
    zk.destroy();
  }
}

describe('sync-users on a ZK terminal whose users changed after they were read', () => {
  it('an addition whose uid was taken meanwhile is not written over the new user: failed, said why', async () => {
    const { gate } = await env.start({ gate: { users: [{ uid: 1, userId: '9', name: 'Visitor' }] } });
    const adapter = syncAdapterFor(env.config.terminals[0]!, env.deps());
    const snapshot = await adapter.read();
    const plan = planTerminal(
      [{ code: '1001', name: 'New Hire', card: null, active: true, where: 'roster.csv:2' }],
      snapshot.users,
      snapshot.profile,
      { removeAbsent: false, includeAdmins: false, maxRemovals: 'default' },
    );
    expect(plan.changes).toMatchObject([{ action: 'add', code: '1001', uid: 2 }]);
    await enrolMeanwhile(gate.port, 2, '777', 'Keypad Enrol');
    const outcome = await adapter.apply(plan.changes, noBackups);
    await adapter.close();
    expect(usersOf(gate)).toEqual(['1 9 Visitor 0 0', '2 777 Keypad Enrol 0 0']);
    expect(outcome.results[0]).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('uid 2 was taken on the terminal after its users were read (now user 777'),
    });
  });

  it('an update whose uid holds another user now changes nobody', async () => {
    const { gate } = await env.start({ gate: { users: [{ uid: 1, userId: '1001', name: 'Ann' }] } });
    const adapter = syncAdapterFor(env.config.terminals[0]!, env.deps());
    const snapshot = await adapter.read();
    const plan = planTerminal(
      [{ code: '1001', name: 'Ann Lee', card: null, active: true, where: 'roster.csv:2' }],
      snapshot.users,
      snapshot.profile,
      { removeAbsent: false, includeAdmins: false, maxRemovals: 'default' },
    );
    await enrolMeanwhile(gate.port, 1, '555', 'Someone Else');
    const outcome = await adapter.apply(plan.changes, noBackups);
    await adapter.close();
    expect(usersOf(gate)).toEqual(['1 555 Someone Else 0 0']);
    expect(outcome.results[0]).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('uid 1 holds user 555 now, not 1001'),
    });
  });
});
