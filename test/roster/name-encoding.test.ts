/**
 * Names in a ZK terminal's own character set (`encoding: gbk`): read right from the 72-byte user
 * records, written back in that set, never written as garbage. Real simulators on 127.0.0.1, a real
 * journal. The simulator keeps the name bytes it is sent, as a terminal does.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';
import { NameCodec } from '../../src/util/name-codec.js';
import { tempDir } from '../helpers/tmp.js';
import { useUserSync } from './helpers.js';

const env = useUserSync();
const gbk = new NameCodec('gbk');
const GBK = (s: string) => gbk.encode(s)!;

describe('ZK names in the terminal character set', () => {
  it('never writes a name over one it cannot read (a GBK terminal left at UTF-8): the card still changes', async () => {
    const { gate } = await env.start({
      gate: { users: [{ uid: 1, userId: '1001', name: '', nameBytes: GBK('张三'), card: 5 }] },
    });
    const roster = env.writeRoster(['code,name,card', '1001,张三,777']);
    const run = await env.sync({ roster });
    const u = gate.users()[0]!;
    // The terminal's own bytes stay: a UTF-8 "张三" would show as garbage on its screen.
    expect(u.nameBytes?.equals(GBK('张三'))).toBe(true);
    expect(u.card).toBe(777);
    expect(run.out).toMatch(
      /refuse 1001 .*name not changed: the terminal's name for user 1001 is no text in utf-8 \(bytes d5 c5 c8 fd\).*set encoding: for this terminal/,
    );
    expect(run.code).not.toBe(0);
  });

  it('with encoding: gbk reads, adds and renames in GBK; a name GBK cannot hold is refused; a second run changes nothing', async () => {
    const { gate } = await env.start({
      gate: {
        encoding: 'GBK',
        users: [
          { uid: 1, userId: '1001', name: '', nameBytes: GBK('张三') },
          { uid: 2, userId: '1003', name: '', nameBytes: GBK('王') },
        ],
      },
    });
    const roster = env.writeRoster(['code,name', '1001,张三', '1002,李四', '1003,王五', '1004,محمد']);
    const first = await env.sync({ roster });
    expect(first.out).toMatch(
      /refuse 1004 .*name "محمد" has characters this terminal's character set \(gbk\) cannot hold/,
    );
    const byId = new Map(gate.users().map((u) => [u.userId, u]));
    expect(byId.get('1001')!.nameBytes?.equals(GBK('张三'))).toBe(true);
    expect(byId.get('1002')!.nameBytes?.equals(GBK('李四'))).toBe(true);
    expect(byId.get('1003')!.nameBytes?.equals(GBK('王五'))).toBe(true);
    expect(byId.has('1004')).toBe(false);

    const again = await env.sync({ roster: env.writeRoster(['code,name', '1001,张三', '1002,李四', '1003,王五']) });
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/0 added, 0 updated, 0 removed; 3 unchanged/);
  });

  it('cuts a long name at a character by its GBK bytes (24 bytes: 12 Chinese characters)', async () => {
    const { gate } = await env.start({ gate: { encoding: 'gbk', users: [] } });
    const long = '一二三四五六七八九十甲乙丙丁';
    const run = await env.sync({ roster: env.writeRoster(['code,name', `1001,${long}`]) });
    expect(run.code).toBe(0);
    expect(gate.users()[0]!.nameBytes?.equals(GBK(long.slice(0, 12)))).toBe(true);
  });

  it('a character set Node cannot read is a config error naming the terminal; the CLI exits 78 with file:line', () => {
    const base = { site: 's', journal: { path: 'j.db' }, hrms: { baseUrl: 'https://hr.example' } };
    const bad = () =>
      parseConfig({ ...base, terminals: [{ name: 'gate', kind: 'zk', host: 'h', encoding: 'gbkk' }] }, '/tmp');
    expect(bad).toThrow(ConfigError);
    expect(() => bad()).toThrow(
      /terminals\[0\] \(gate\)\.encoding: must be a character set such as utf-8, gbk.*got the text "gbkk" \(did you mean "gbk"\?\)/,
    );
    // A trial: `utf-16le` is a character set TextDecoder knows (the docs said any such name is
    // accepted), yet it was refused as "must be a character set", with no why.
    const wide = () =>
      parseConfig({ ...base, terminals: [{ name: 'gate', kind: 'zk', host: 'h', encoding: 'UTF-16LE' }] }, '/tmp');
    expect(wide).toThrow(
      /encoding: must be a character set such as utf-8, .* a terminal keeps names in, got the text "UTF-16LE": utf-16le keeps two bytes per character, and no terminal keeps names so/,
    );
    expect(() =>
      parseConfig({ ...base, terminals: [{ name: 'gate', kind: 'zk', host: 'h', encoding: 'hex' }] }, '/tmp'),
    ).toThrow(/encoding: must be a character set such as .*windows-1256, got the text "hex"$/m);
    const ok = parseConfig(
      {
        ...base,
        adms: { listen: '127.0.0.1:8081' },
        terminals: [{ name: 'gate', kind: 'adms', serial: 'X1', encoding: 'cp1252' }],
      },
      '/tmp',
    );
    expect(ok.terminals[0]).toMatchObject({ encoding: 'windows-1252' });

    const tmp = tempDir();
    try {
      const f = tmp.path('bad.yaml');
      writeFileSync(
        f,
        'site: plant-a\njournal:\n  path: x.db\nhrms:\n  baseUrl: https://hr.example\nterminals:\n  - name: gate\n    kind: zk\n    host: 10.0.0.5\n    encoding: big-5\n',
      );
      const r = spawnSync(process.execPath, ['dist/punchgate.js', '--config', f, 'status'], { encoding: 'utf8' });
      expect(r.status).toBe(78);
      expect(r.stderr).toMatch(/bad\.yaml:10: terminals\[0\] \(gate\)\.encoding: must be a character set/);
    } finally {
      tmp.cleanup();
    }
  });
});
