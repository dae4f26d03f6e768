/**
 * A user's name as a ZK terminal reports it, printed by `terminals copy-templates` and
 * `terminals restore-user`: a terminal (or whoever enrolled the user on it) chooses that text, and
 * a screen must not act on it. Found by an adversarial trial: both printed the name with
 * JSON.stringify, which escapes C0 controls only, so a right-to-left override, a C1 CSI (U+009B)
 * and a line separator reached the admin's terminal raw.
 */
import { describe, expect, it } from 'vitest';
import { UserBackupStore } from '../../src/journal/user-backups.js';
import { runCopyTemplates } from '../../src/roster/zk/copy-templates.js';
import { runRestoreUser } from '../../src/roster/zk/restore-user.js';
import type { SimTemplate } from '../../src/sim/terminal/index.js';
import { useUserSync } from './helpers.js';

const env = useUserSync();
const NAME = 'Ev\u202eil\u009b2J\u2028X';
/** Raw characters a screen acts on or hides, which JSON.stringify leaves as they are. */
const RAW = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b]/u;
const tpl = (userId: string, finger: number): SimTemplate => ({
  userId,
  finger,
  template: Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 7 + finger) & 0xff)),
});

describe('a terminal user’s name with hidden characters', () => {
  it('copy-templates writes it escaped, each character visible', async () => {
    await env.start({
      enrol: { users: [{ uid: 1, userId: '1001', name: NAME }], templates: [tpl('1001', 0)] },
      gate: { users: [] },
    });
    const d = env.deps();
    d.output.code = await runCopyTemplates({ from: 'enrol', to: ['gate'], dryRun: true }, d);
    expect(d.output.code).toBe(0);
    expect(d.output.out).not.toMatch(RAW);
    expect(d.output.out).toContain('+ add     1001         "Ev\\u202eil\\x9b2J\\u2028X" (uid ');
  });

  it('restore-user writes it escaped, each character visible', async () => {
    const { gate } = await env.start({
      gate: { users: [{ uid: 5, userId: '1005', name: NAME }], templates: [tpl('1005', 3)] },
    });
    expect((await env.sync({ roster: env.writeRoster(['code,name,active', '1005,Dan,0']) })).code).toBe(0);
    expect(gate.users().map((u) => u.userId)).toEqual([]);
    const d = env.deps();
    d.output.code = await runRestoreUser('gate', '1005', d);
    expect(d.output.code).toBe(0);
    expect(d.output.out).not.toMatch(RAW);
    expect(d.output.out).toMatch(/^gate: restored 1005 "Ev\\u202eil\\x9b2J\\u2028X" \(uid 5\)/);
  });

  it('restore-user says why a name kept with U+FFFD is left out with the name escaped', async () => {
    await env.start({ gate: { users: [] } });
    new UserBackupStore(env.journal.db).save({
      terminal: 'gate',
      serial: 'S',
      fpVersion: '10',
      code: '1002',
      uid: 2,
      name: 'a\ufffd\u202eb\u009b2J',
      card: 42,
      privilege: 0,
      reason: 'test',
      templates: [{ finger: 3, valid: 1, template: Buffer.alloc(300, 7) }],
    });
    const d = env.deps();
    d.output.code = await runRestoreUser('gate', '1002', d);
    expect(d.output.code).toBe(1);
    expect(d.output.err).not.toMatch(RAW);
    expect(d.output.err).toContain('1002: name "a\ufffd\\u202eb\\x9b2J" was no text when it was read');
  });
});
