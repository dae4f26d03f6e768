import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { decideFallback } from '../../src/config/fallback.js';
import { loadConfigFile } from '../../src/config/load.js';
import { checkTerminalConfig } from '../../src/sources/build.js';
import { tempDir } from '../helpers/tmp.js';

const GOOD = `site: plant-a
journal:
  path: journal.db
hrms:
  baseUrl: https://hr.example.com
terminals:
  - name: gate-1
    kind: zk
    host: 192.168.1.201
  - name: gate-2
    kind: zk
    host: 192.168.1.202
    port: 4370
  - name: lobby
    kind: hikvision
    url: https://192.168.1.64
    passwordFile: pw
`;

/**
 * What the broken file still says wins over the last good copy (issue 30), in the variants an
 * edit makes: the daemon test (test/daemon/config-broken.test.ts) proves it end to end.
 */
describe('the last good config as a fallback', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((c) => c()));

  function decide(broken: string) {
    const dir = tempDir('punchgate-fallback-');
    cleanups.push(dir.cleanup);
    const file = dir.path('punchgate.yaml');
    writeFileSync(dir.path('pw'), 'x\n');
    writeFileSync(file, GOOD);
    const copy = loadConfigFile(file, checkTerminalConfig).config;
    writeFileSync(file, broken);
    const r = decideFallback(copy, file);
    return { ...r, names: r.config.terminals.map((t) => t.name), file };
  }

  it('the HRMS address: the same (a trailing / apart) delivers; another, or one that cannot be read, holds delivery', () => {
    const typo = GOOD.replace('site:', 'sitte:');
    expect(decide(typo).decision.deliveryHeld).toBeNull();
    expect(decide(typo.replace('hr.example.com', 'hr.example.com/')).decision.deliveryHeld).toBeNull();
    const moved = decide(typo.replace('hr.example.com', 'hr2.example.com'));
    expect(moved.decision.deliveryHeld).toBe(
      `${moved.file} names the HRMS https://hr2.example.com, the last good copy https://hr.example.com`,
    );
    for (const broken of [
      typo.replace('  baseUrl: https://hr.example.com\n', ''),
      typo.replace('baseUrl: https', 'baseUrl: [https'),
      typo.replace('baseUrl: https://hr.example.com', 'baseUrl: "https://hr.example.com'),
      typo.replace('hrms:', 'hrms: 5\nx:'),
      'site: [\n',
      '',
    ])
      expect(decide(broken).decision.deliveryHeld, broken).toMatch(/cannot be read/);
  });

  it('the terminals: removed, moved, disabled or new in the file are not started; an unreadable list keeps the copy’s', () => {
    const r = decide(
      GOOD.replace('site:', 'sitte:')
        .replace('  - name: gate-1\n    kind: zk\n    host: 192.168.1.201\n', '')
        .replace('port: 4370', 'port: 4371')
        .replace('passwordFile: pw', 'passwordFile: pw\n    enabled: false')
        .concat('  - name: gate-3\n    kind: zk\n    host: 192.168.1.203\n'),
    );
    expect(r.names).toEqual([]);
    expect(r.decision.notStarted.map((t) => t.name)).toEqual(['gate-1', 'gate-2', 'lobby']);
    expect(r.decision.notStarted[1]!.why).toBe(`${r.file} gives it another port (4371; the copy: 4370)`);
    expect(r.decision.notStarted[2]!.why).toBe(`${r.file} disables it (enabled: false)`);
    expect(r.decision.onlyInFile).toEqual(['gate-3']);
    const same = decide(GOOD.replace('site:', 'sitte:'));
    expect(same.names).toEqual(['gate-1', 'gate-2', 'lobby']);
    expect(same.decision.notStarted).toEqual([]);
    const unread = decide(GOOD.replace('terminals:', 'terminals: 7\nx:'));
    expect(unread.names).toEqual(['gate-1', 'gate-2', 'lobby']);
    expect(unread.decision.terminalsUnread).toBe(true);
  });

  /** Other kinds, other keys: a BioTime server and its devices, a Dahua's tls, a port the file drops, an Odoo database. */
  const OTHERS = `site: plant-a
journal:
  path: journal.db
hrms:
  baseUrl: https://hr.example.com
sinks:
  - name: odoo
    kind: odoo
    baseUrl: https://odoo.example.com
    database: prod
    apiKeyFile: pw
terminals:
  - name: gate-2
    kind: zk
    host: 192.168.1.202
    port: 4371
  - name: hq
    kind: biotime
    baseUrl: http://192.168.1.20:8081
    username: punchgate
    passwordFile: pw
    terminals: [CQZ001, CQZ002]
  - name: door
    kind: dahua
    host: 192.168.1.108
    passwordFile: pw
`;

  function decideOthers(broken: (good: string) => string) {
    const dir = tempDir('punchgate-fallback-');
    cleanups.push(dir.cleanup);
    const file = dir.path('punchgate.yaml');
    writeFileSync(dir.path('pw'), 'x\n');
    writeFileSync(file, OTHERS);
    const copy = loadConfigFile(file, checkTerminalConfig).config;
    writeFileSync(file, broken(OTHERS.replace('site:', 'sitte:')));
    const r = decideFallback(copy, file);
    return { ...r, names: r.config.terminals.map((t) => t.name), file };
  }

  it('other kinds and keys: a BioTime server moved or its devices changed, a Dahua on tls, a port dropped to the default, an Odoo database changed', () => {
    const same = decideOthers((g) => g);
    expect(same.names).toEqual(['gate-2', 'hq', 'door']);
    expect(same.decision.deliveryHeld).toBeNull();
    const cases: [string, (g: string) => string, string, RegExp][] = [
      ['port dropped', (g) => g.replace('    port: 4371\n', ''), 'gate-2', /another port \(4370; the copy: 4371\)/],
      ['BioTime moved', (g) => g.replace('192.168.1.20:8081', '192.168.1.21:8081'), 'hq', /another baseUrl/],
      ['BioTime devices', (g) => g.replace('[CQZ001, CQZ002]', '[CQZ001]'), 'hq', /another terminals \(\["CQZ001"\]/],
      [
        'Dahua tls',
        (g) => g.replace('    host: 192.168.1.108\n', '    host: 192.168.1.108\n    tls: true\n'),
        'door',
        /another tls \(true; the copy: false\)/,
      ],
    ];
    for (const [what, change, name, why] of cases) {
      const r = decideOthers(change);
      expect(
        r.decision.notStarted.map((t) => t.name),
        what,
      ).toEqual([name]);
      expect(r.decision.notStarted[0]!.why, what).toMatch(why);
      expect(r.decision.deliveryHeld, what).toBeNull();
    }
    const db = decideOthers((g) => g.replace('database: prod', 'database: test'));
    expect(db.decision.deliveryHeld).toBe(`${db.file} names the database test for sink odoo, the last good copy prod`);
    expect(decideOthers((g) => g.replace('    database: prod\n', '')).decision.deliveryHeld).toMatch(
      /the database of sink odoo in .* cannot be read/,
    );
    expect(db.names).toEqual(['gate-2', 'hq', 'door']);
  });
});
