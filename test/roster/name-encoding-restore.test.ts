/**
 * `restore-user` and `copy-templates` write names in the terminal's own character set
 * (`encoding: gbk`), and never write a name kept with U+FFFD (no text where it was read): the user
 * goes back without its name, with its fingerprints, and the command says so. Real simulators on
 * 127.0.0.1, a real journal.
 */
import { describe, expect, it } from 'vitest';
import { UserBackupStore } from '../../src/journal/user-backups.js';
import { runCopyTemplates } from '../../src/roster/zk/copy-templates.js';
import { runRestoreUser } from '../../src/roster/zk/restore-user.js';
import type { SimTemplate } from '../../src/sim/terminal/index.js';
import { NameCodec } from '../../src/util/name-codec.js';
import { useUserSync } from './helpers.js';

const env = useUserSync();
const gbk = new NameCodec('gbk');
const GBK = (s: string) => gbk.encode(s)!;
const tpl = (userId: string, finger: number): SimTemplate => ({
  userId,
  finger,
  template: Buffer.alloc(400, finger + 1),
});

function backup(code: string, uid: number, name: string) {
  new UserBackupStore(env.journal.db).save({
    terminal: 'gate',
    serial: 'S',
    fpVersion: '10',
    code,
    uid,
    name,
    card: 42,
    privilege: 0,
    reason: 'test',
    templates: [{ finger: 3, valid: 1, template: Buffer.alloc(300, 7) }],
  });
}

async function restore(code: string) {
  const d = env.deps();
  d.output.code = await runRestoreUser('gate', code, d);
  return d.output;
}

describe('restore-user and copy-templates in the terminal character set', () => {
  it('restore-user writes the name in GBK, and a name kept with U+FFFD not at all (the user and fingers still back)', async () => {
    const { gate } = await env.start({ gate: { encoding: 'gbk', users: [] } });
    backup('1001', 1, '张三');
    backup('1002', 2, 'a\ufffd\ufffdb');

    const ok = await restore('1001');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/restored 1001 "张三" \(uid 1\)/);
    expect(
      gate
        .users()
        .find((u) => u.userId === '1001')!
        .nameBytes?.equals(GBK('张三')),
    ).toBe(true);

    const bad = await restore('1002');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(
      /1002: name "a\ufffd\ufffdb" was no text when it was read \(kept with U\+FFFD\); written without a name/,
    );
    expect(bad.out).toMatch(/restored 1002 "" \(uid 2\) with 1 fingerprint\(s\).*without its name/);
    const u = gate.users().find((x) => x.userId === '1002')!;
    expect(u.name).toBe('');
    expect(u.nameBytes).toBeUndefined();
    expect(u.card).toBe(42);
    expect(gate.templates().filter((t) => t.userId === '1002')).toHaveLength(1);
  });

  it('copy-templates reads names in the source character set and writes them in the target one; an unreadable one is left out and said', async () => {
    const sims = await env.start({
      enrol: {
        encoding: 'gbk',
        users: [
          { uid: 1, userId: '1001', name: '', nameBytes: GBK('李四') },
          { uid: 2, userId: '1002', name: '', nameBytes: Buffer.from([0x81, 0x20, 0x41]) },
        ],
        templates: [tpl('1001', 0), tpl('1002', 1)],
      },
      gate: { encoding: 'gbk', users: [] },
    });
    const d = env.deps();
    d.output.code = await runCopyTemplates({ from: 'enrol', to: ['gate'] }, d);
    const byId = new Map(sims.gate.users().map((u) => [u.userId, u]));
    expect(byId.get('1001')!.nameBytes?.equals(GBK('李四'))).toBe(true);
    expect(byId.get('1002')!.name).toBe('');
    expect(byId.get('1002')!.nameBytes).toBeUndefined();
    expect(sims.gate.templates()).toHaveLength(2);
    expect(d.output.out).toMatch(
      /1002 .*applied\n {4}without its name: name .* was no text when it was read \(kept with U\+FFFD\).*the source holds bytes 81 20 41/,
    );
    expect(d.output.code).toBe(1);
  });
});
