import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The mistakes of someone who follows the README for the first time (found by a new-user trial):
 * each ends with what to try, never a bare error code, and a first start in a fresh folder works.
 */
describe('a newcomer’s first commands', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('punchgate-newcomer-')));
  afterEach(() => tmp.cleanup());

  const head = 'site: plant-a\njournal:\n  path: journal.db\nhrms:\n  baseUrl: https://hr.example.com\n';

  it('terminals users of a ZK terminal that cannot be reached: exit 75 with the plain words and the setting to check', async () => {
    const config = tmp.path('punchgate.yaml');
    writeFileSync(config, `${head}terminals:\n  - name: gate-2\n    kind: zk\n    host: 127.0.0.1\n    port: 1\n`);
    const r = await runPunchgate(['--config', config, 'terminals', 'users', 'gate-2']);
    expect(r.status, r.stderr).toBe(75);
    expect(r.stderr).toContain(
      'gate-2: 127.0.0.1:1 refused the connection — check terminals[0].host and terminals[0].port (4370 unless changed on the terminal)',
    );
    expect(r.stderr).not.toMatch(/CONNECT\(1000\)|ECONNREFUSED/);
  });

  it('a journal another process holds: exit 75, try again, and how to find the process if it lasts', async () => {
    const config = tmp.path('punchgate.yaml');
    writeFileSync(config, `${head}terminals: []\n`);
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
    const holder = spawn(process.execPath, ['test/fixtures/hold-write-lock.mjs', tmp.path('journal.db'), '60000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      holder.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await waitFor(() => out.includes('held'), 15_000, 'the other process holding the write lock');
      writeFileSync(tmp.path('punches.csv'), 'biometriccode,logDate\n1001,2026-11-29 08:00:00\n');
      const r = await runPunchgate(['--config', config, 'import', tmp.path('punches.csv')]);
      expect(r.status, r.stderr).toBe(75);
      expect(r.stderr).toContain(
        `the journal ${tmp.path('journal.db')} is busy: another process holds its write lock (an import, a backup, an sqlite3 shell); try again in a moment; if it lasts, find the process (fuser -v ${tmp.path('journal.db')}) and end it`,
      );
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('check never prints a key in the query of a server address (found by an adversarial trial)', async () => {
    const config = tmp.path('punchgate.yaml');
    writeFileSync(tmp.path('token'), 'tok-123456789\n');
    writeFileSync(
      config,
      'site: plant-a\njournal:\n  path: journal.db\nhrms:\n  baseUrl: http://127.0.0.1:9/?api_key=QueryKeyLEAK123\n  tokenFile: token\n  connectTimeoutMs: 500\nterminals: []\n',
    );
    const r = await runPunchgate(['--config', config, 'check']);
    expect(r.stdout).toContain('cannot reach the HRMS at http://127.0.0.1:9?(not shown)');
    expect(r.stdout + r.stderr).not.toContain('QueryKeyLEAK123');
  });

  it('terminals users of a terminal that holds no users says its kind, not that the config has none (found by a new-user trial)', async () => {
    const config = tmp.path('punchgate.yaml');
    writeFileSync(
      config,
      `${head}terminals:\n  - name: bench-clock\n    kind: serial\n    path: /dev/ttyUSB0\n    format: card\n`,
    );
    const kind = await runPunchgate(['--config', config, 'terminals', 'users', 'bench-clock']);
    expect(kind.stderr).toContain(
      'bench-clock is a serial terminal: it holds no users (terminals users reads zk, hikvision, dahua and push terminals)',
    );
    const none = await runPunchgate(['--config', config, 'terminals', 'users', 'nope']);
    expect(none.stderr).toContain(
      'no zk, hikvision, dahua or push terminal named "nope" in the config (it has none of those kinds)',
    );
  });

  it('a command typed wrong: exit 64 with one line and where the options are, never the whole help nor exit 1', async () => {
    for (const args of [
      ['punches', '--since', '2026-13-01'],
      ['status', '--nope'],
      ['bogus'],
      ['employees', 'create'],
      [],
    ]) {
      const r = await runPunchgate(['--config', tmp.path('punchgate.yaml'), ...args]);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(64);
      if (args.length === 0) continue; // no command at all: the list of commands is the answer
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(2);
      expect(r.stderr).toMatch(/^error: /);
      expect(r.stderr).toContain('(add --help to the command to see its options)');
    }
    const help = await runPunchgate(['punches', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--since');
  });

  it('an unknown command or simulator kind, with --help or not: exit 64 naming the commands there are, never the group’s help', async () => {
    for (const [args, group, one] of [
      [['sim', 'zk', '--help'], 'punchgate sim', 'push-terminal'],
      [['sim', 'zk'], 'punchgate sim', 'terminal'],
      [['terminals', 'bogus', '-h'], 'punchgate terminals', 'users'],
      [['zk', '--help'], 'punchgate', 'sim'],
    ] as const) {
      const r = await runPunchgate(['--config', tmp.path('punchgate.yaml'), ...args]);
      expect(r.status, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(64);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(`^error: unknown command '${args[0] === 'zk' ? 'zk' : args[1]}' for '${group}'`),
      );
      expect(r.stderr).toContain(one);
    }
    // A typo names the command meant (a new-user trial typed `stauts` and read the whole list).
    for (const [args, meant] of [
      [['stauts'], 'status'],
      [['sim', 'hrsm'], 'hrms'],
      [['terminals', 'usres'], 'users'],
    ] as const) {
      const r = await runPunchgate(['--config', tmp.path('punchgate.yaml'), ...args]);
      expect(r.status).toBe(64);
      expect(r.stderr).toMatch(new RegExp(`^error: unknown command '${args.at(-1)}' .*; did you mean ${meant}\\?\n`));
    }
    const known = await runPunchgate(['sim', 'hrms', '--help']);
    expect(known.status).toBe(0);
    expect(known.stdout).toContain('Usage: punchgate sim hrms');
  });

  it('a command without --config, with no config at the default path: exit 78 naming --config and the example', async () => {
    const missing = tmp.path('punchgate.yaml');
    for (const command of ['status', 'punches', 'flush']) {
      const r = await runPunchgate(['--config', missing, command]);
      expect(r.status, r.stderr).toBe(78);
      expect(r.stderr).toContain(`${missing}: cannot read the config file (ENOENT): no such file`);
      expect(r.stderr).toContain('--config FILE');
      expect(r.stderr).toContain('PUNCHGATE_CONFIG');
      expect(r.stderr).toContain('config/punchgate.example.yaml');
    }
    // PUNCHGATE_CONFIG is what the default is made of: the same words when it names no file.
    const env = await runPunchgate(['status'], { env: { PUNCHGATE_CONFIG: missing } });
    expect(env.status).toBe(78);
    expect(env.stderr).toContain(`${missing}: cannot read the config file (ENOENT): no such file`);
    // check says to do what the line says, not to correct a line the file does not have.
    const check = await runPunchgate(['--config', missing, 'check']);
    expect(check.status).toBe(78);
    expect(check.stdout).toContain('do what the line below says, then run punchgate check again');
    expect(check.stdout).not.toContain('correct the line below');
    expect(check.stdout).toContain('--config FILE');
  });

  it('a folder given as the config: exit 78 saying to name the file in it', async () => {
    mkdirSync(tmp.path('etc'));
    const r = await runPunchgate(['--config', tmp.path('etc'), 'status']);
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('cannot read the config file (EISDIR): this is a folder: name the YAML file in it');
  });

  it('a kind by its vendor’s or protocol’s name: the kind meant is named', async () => {
    const cases: [string, string, string][] = [
      ['push', 'terminals[0] (lobby).kind', 'adms'],
      ['zkteco', 'terminals[0] (lobby).kind', 'zk'],
      ['ZKBioTime', 'terminals[0] (lobby).kind', 'biotime'],
      ['iclock', 'terminals[0] (lobby).kind', 'adms'],
    ];
    const file = tmp.path('punchgate.yaml');
    for (const [kind, path, meant] of cases) {
      writeFileSync(file, `${head}terminals:\n  - name: lobby\n    kind: ${kind}\n    host: 192.168.1.201\n`);
      const r = await runPunchgate(['--config', file, 'check', '--config-only']);
      expect(r.status, kind).toBe(78);
      expect(r.stdout).toContain(`punchgate.yaml:8: ${path}: must be one of`);
      expect(r.stdout, kind).toContain(`got the text "${kind}" (did you mean "${meant}"?)`);
    }
    writeFileSync(
      file,
      `${head}sinks:\n  - name: erp\n    kind: erpnext\n    baseUrl: https://erp.example.com\n    apiKeyFile: k\n    apiSecretFile: s\n`,
    );
    const sink = await runPunchgate(['--config', file, 'check', '--config-only']);
    expect(sink.status).toBe(78);
    expect(sink.stdout).toContain('got the text "erpnext" (did you mean "frappe"?)');
    // A real typo still gets its near miss, and a word far from every kind none.
    writeFileSync(file, `${head}terminals:\n  - name: lobby\n    kind: sap\n    host: 192.168.1.201\n`);
    const far = await runPunchgate(['--config', file, 'check', '--config-only']);
    expect(far.stdout).toContain('got the text "sap"');
    expect(far.stdout).not.toContain('did you mean');
  });

  it('a terminal host written with its port or as a URL: exit 78 at the line, saying how to write it', async () => {
    const file = tmp.path('punchgate.yaml');
    const cases: [string, string, string][] = [
      ['zk', '192.168.1.201:4370', 'write the port in port: (host: 192.168.1.201, port: 4370)'],
      ['zk', 'gate-1.plant.lan:4370', 'write the port in port: (host: gate-1.plant.lan, port: 4370)'],
      ['zk', 'http://192.168.1.201', 'must be the address alone, without http://'],
      ['dahua', 'https://192.168.1.108', 'must be the address alone, without https://'],
    ];
    for (const [kind, host, says] of cases) {
      writeFileSync(file, `${head}terminals:\n  - name: gate-1\n    kind: ${kind}\n    host: ${host}\n`);
      const r = await runPunchgate(['--config', file, 'check', '--config-only']);
      expect(r.status, host).toBe(78);
      expect(r.stdout).toContain(`punchgate.yaml:9: terminals[0] (gate-1).host: must be the address alone`);
      expect(r.stdout, host).toContain(says);
    }
    // Addresses and names as they should be, IPv6 included, still load.
    for (const host of ['192.168.1.201', 'gate-1.plant.lan', '"fe80::1"', '"::1"']) {
      writeFileSync(file, `${head}terminals:\n  - name: gate-1\n    kind: zk\n    host: ${host}\n`);
      const r = await runPunchgate(['--config', file, 'check', '--config-only']);
      expect(r.status, `${host}: ${r.stdout}`).toBe(0);
    }
  });

  it('the push receiver given a port alone: exit 78 saying HOST:PORT', async () => {
    const file = tmp.path('punchgate.yaml');
    writeFileSync(file, `${head}adms:\n  listen: 8081\n`);
    const r = await runPunchgate(['--config', file, 'check', '--config-only']);
    expect(r.status).toBe(78);
    expect(r.stdout).toContain(
      'punchgate.yaml:7: adms.listen: must be HOST:PORT such as 0.0.0.0:8081 or [::]:8081 (a port alone is not enough)',
    );
  });

  it('punches with a mistyped --state: exit 78 naming every word it takes and the one meant; export writes nothing', async () => {
    const file = tmp.path('punchgate.yaml');
    writeFileSync(file, head);
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
    const list = await runPunchgate(['--config', file, 'punches', '--state', 'undeliverd']);
    expect(list.status).toBe(78);
    expect(list.stderr).toContain(
      '--state: must be one of pending, inflight, delivered, rejected, dead, quarantined, not_routed, undelivered, found "undeliverd" (did you mean undelivered?)',
    );
    const exported = await runPunchgate(['--config', file, 'punches', 'export', '--state', 'pendng']);
    expect(exported.status).toBe(78);
    expect(exported.stderr).toContain('found "pendng" (did you mean pending?)');
    // Redirected into a file, a refused export must not leave a header-only CSV.
    expect(exported.stdout).toBe('');
  });

  it('a terminal name mistyped on the command line: exit 78 listing the names there are and the one meant', async () => {
    const file = tmp.path('punchgate.yaml');
    writeFileSync(
      file,
      `${head}status:\n  listen: false\nterminals:\n  - name: gate-1\n    kind: zk\n    host: 127.0.0.1\n    port: 9\n  - name: canteen\n    kind: zk\n    host: 127.0.0.1\n    port: 9\n`,
    );
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
    writeFileSync(tmp.path('p.csv'), 'biometriccode,logDate\n1042,2026-11-22 08:00:00\n');
    const runs: [string[], string][] = [
      [['poll', '--terminal', 'gate1'], '(the ones polled are: gate-1, canteen; did you mean gate-1?)'],
      [['terminals', 'users', 'gate1'], '(the terminals are: gate-1, canteen; did you mean gate-1?)'],
      [
        ['import', '--terminal', 'cantene', tmp.path('p.csv')],
        '(the terminals are: gate-1, canteen; did you mean canteen?)',
      ],
      [['terminals', 'commands', 'gate1'], '(the config has no push terminals)'],
      [['terminals', 'listen', 'gate-1', '--print'], '(the config has no hikvision terminals)'],
    ];
    for (const [args, says] of runs) {
      const r = await runPunchgate(['--config', file, ...args]);
      expect(r.status, args.join(' ')).toBe(78);
      expect(r.stderr, args.join(' ')).toContain(says);
    }
  });

  it('the demo with a kind or an HRMS by another name: exit 78 naming the one meant', async () => {
    const kinds = await runPunchgate(['demo', '--terminals', 'zk,push']);
    expect(kinds.status).toBe(78);
    expect(kinds.stderr).toContain('found "zk,push" (did you mean "adms" for "push"?)');
    const hrms = await runPunchgate(['demo', '--hrms', 'erpnext']);
    expect(hrms.status).toBe(78);
    expect(hrms.stderr).toContain('found "erpnext" (did you mean "frappe"?)');
    const far = await runPunchgate(['demo', '--hrms', 'sap']);
    expect(far.status).toBe(78);
    expect(far.stderr).not.toContain('did you mean');
  });

  it('a first start with the journal in a folder not made yet keeps the last good config from the start', async () => {
    const file = tmp.path('punchgate.yaml');
    writeFileSync(
      file,
      'site: plant-a\njournal:\n  path: data/journal.db\nhrms:\n  baseUrl: http://127.0.0.1:9\nstatus:\n  listen: false\n',
    );
    const copy = tmp.path('data/config.last-good.yaml');
    const { PUNCHGATE_HRMS_TOKEN: _t, PUNCHGATE_CONFIG: _c, NOTIFY_SOCKET: _n, ...env } = process.env;
    const child = spawn(process.execPath, ['dist/punchgate.js', 'run', '--config', file, '--log-format', 'text'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    try {
      await waitFor(() => out.includes('punchgate running'), 20_000, 'the daemon running');
      expect(out).not.toContain('could not keep a copy of the config');
      expect(existsSync(copy)).toBe(true);
      expect(readFileSync(copy, 'utf8')).toContain('path: data/journal.db');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 40_000);
});
