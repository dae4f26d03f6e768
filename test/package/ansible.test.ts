/**
 * The Ansible role contrib/ansible/roles/punchgate (issue 34), applied to this machine with
 * `ansible-playbook -c local`, as root: it installs punchgate from a signed APT repository served
 * on loopback (the key into /etc/apt/keyrings, a deb822 sources entry, apt), writes the secrets from a
 * vaulted vars file (never shown in Ansible's output) and the config from variables, checked by
 * `punchgate check --config-only` before it replaces the file. Applied again, it changes nothing
 * and reloads nothing; a changed variable reloads the running daemon once; a broken variable fails
 * the play and leaves the file and the running daemon as they were (a number as text, an address
 * that is not a URL, an unknown terminal kind, a vault variable not defined, a secret of two lines).
 * The secrets hold what YAML and Jinja make special ({{ }}, {% %}, {# #}, quotes, a colon, #),
 * vaulted as !unsafe: they reach their files as they are (the HRMS and a Frappe sink on loopback
 * take them), and appear in no output, -vvv included. ansible-lint (production profile) passes on
 * contrib/ansible, and the example inventory of three sites decrypts and parses.
 *
 * There is no systemd here (PID 1 is not systemd in CI's container): the role runs with
 * punchgate_service_manager: command, its reload handler sending SIGHUP to the daemon the test
 * started as the service user (what the unit's ExecReload does after its own config check). The
 * role's systemd tasks (enable, start, reload) are linted, not run. apt runs with this test's own
 * sources folder, lists and cache (APT_CONFIG; the role's punchgate_apt_sources_dir points there):
 * no other repository is read and the machine's apt state stays as it was. The .deb route is run
 * last, over the installed package.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanMachine,
  isRoot,
  leftovers,
  serviceUser,
  sh,
  shAsync,
  start,
  stop,
  type Proc,
  type Ran,
} from '../../bench/lib/package-box.js';
import { freePort } from '../../bench/lib/ports.js';
import { startFrappeSim, type FrappeSim } from '../../src/sim/frappe/index.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { startTerminalSim, type TerminalSim } from '../../src/sim/terminal/index.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { debOf, requireBuilt, VERSION } from './files.js';
import { serveFolder, type StaticServer } from './static-server.js';
import { expectNoSecret } from '../helpers/secret.js';

const ROOT = isRoot();
if (!ROOT) {
  process.stdout.write(
    'test/package/ansible.test.ts: skipped: the role installs the package and writes /etc/punchgate (root); CI runs it as root\n',
  );
}

const CONTRIB = join(process.cwd(), 'contrib', 'ansible');
const CONFIG = '/etc/punchgate/punchgate.yaml';
/**
 * Secrets with what YAML and Jinja make special: vaulted as !unsafe, they reach their files as they
 * are. No spaces: an HTTP bearer token and Frappe's `token key:secret` have none.
 */
const HRMS_TOKEN = `ansible-{{vaulted}}:'hrms'"token"{%raw%}#5e1f`;
const FRAPPE_KEY = 'ansible-frappe-key-{#7c3a#}';
// No colon: Frappe splits `token key:secret` at it, so a secret holding one can never work, and
// punchgate refuses it before sending (the token above keeps one: YAML and Jinja must carry it).
const FRAPPE_SECRET = `frappe-{%if%}{#y#}'q"-s3cr3t-{{z}}`;
/** Pieces of the secrets no output may hold. */
const SECRET_PIECES = ['5e1f', '7c3a', 's3cr3t'];
const COMM_KEY = 4711;
const KEYRING = '/etc/apt/keyrings/punchgate.gpg';
/** The delivery settings of the run that changes a variable (and of the runs after it). */
const CHANGED_DELIVERY = { batchSize: 40, pollIntervalMs: 200, retry: { baseMs: 200, maxMs: 1000 } };
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe.skipIf(!ROOT)('the Ansible role, applied to this machine with ansible-playbook -c local', () => {
  const tmp = tempDir('punchgate-ansible-');
  const pidFile = join(tmp.dir, 'punchgate.pid');
  let hrms: HrmsSim;
  let terminal: TerminalSim;
  let frappe: FrappeSim;
  let daemon: Proc | undefined;
  let statusPort: number;
  let server: StaticServer;
  let keyringWritten = false;
  const gnupg = join(tmp.dir, 'gnupg');
  const sources = join(tmp.dir, 'sources.list.d');

  /** The inventory's variables for this box; `override` changes some for one run. */
  const hostVars = (override: Record<string, unknown> = {}) => ({
    ansible_connection: 'local',
    ansible_python_interpreter: '/usr/bin/python3',
    punchgate_install_from: 'repository',
    punchgate_repository_url: server.url,
    punchgate_apt_sources_dir: sources,
    punchgate_service_manager: 'command',
    punchgate_reload_command: `/bin/sh -c 'test -s ${pidFile} && kill -HUP "$(cat ${pidFile})" || true'`,
    punchgate_site: 'ansibletest',
    punchgate_hrms: { baseUrl: hrms.url, timeoutMs: 2000, connectTimeoutMs: 1000 },
    punchgate_delivery: { batchSize: 50, pollIntervalMs: 200, retry: { baseMs: 200, maxMs: 1000 } },
    punchgate_status: { listen: `127.0.0.1:${statusPort}`, intervalMs: 1000 },
    punchgate_terminals: [
      {
        name: 'gate-1',
        kind: 'zk',
        host: '127.0.0.1',
        port: terminal.port,
        transport: 'tcp',
        schedule: '* * * * * *',
        timezone: 'UTC',
      },
    ],
    punchgate_hrms_token: '{{ vault_hrms_token }}',
    punchgate_terminal_secrets: '{{ vault_terminal_secrets }}',
    punchgate_sinks: [{ name: 'erp', kind: 'frappe', baseUrl: frappe.url, timeoutMs: 2000 }],
    punchgate_sink_secrets: '{{ vault_sink_secrets }}',
    ...override,
  });
  /** One ansible-playbook run of the role on this machine (-v, or `verbosity`; `flags` such as --check); returns its output and the recap's counts. */
  const play = async (override: Record<string, unknown> = {}, verbosity = '-v', flags: string[] = []) => {
    writeFileSync(
      join(tmp.dir, 'inventory.json'),
      JSON.stringify({ punchgate: { hosts: { localhost: hostVars(override) } } }),
    );
    // Not blocking this process: the HRMS and the terminal the daemon talks to answer from it meanwhile.
    const r = await shAsync(
      'ansible-playbook',
      [
        verbosity,
        ...flags,
        '-i',
        join(tmp.dir, 'inventory.json'),
        '-e',
        `@${join(tmp.dir, 'vault.yml')}`,
        '--vault-password-file',
        join(tmp.dir, 'vault-pass'),
        join(tmp.dir, 'play.yml'),
      ],
      {
        env: {
          ...process.env,
          ANSIBLE_ROLES_PATH: join(CONTRIB, 'roles'),
          ANSIBLE_NOCOLOR: '1',
          ANSIBLE_FORCE_COLOR: '0',
          ANSIBLE_LOCAL_TEMP: join(tmp.dir, 'ansible-local'),
          ANSIBLE_REMOTE_TEMP: join(tmp.dir, 'ansible-remote'),
          // The box's facts gathered by the first run and kept for the next eleven (each run
          // would gather the same ones again, a few seconds of CPU each): the role reads them as at a site.
          ANSIBLE_GATHERING: 'smart',
          ANSIBLE_CACHE_PLUGIN: 'jsonfile',
          ANSIBLE_CACHE_PLUGIN_CONNECTION: join(tmp.dir, 'facts'),
          ANSIBLE_CACHE_PLUGIN_TIMEOUT: '3600',
          APT_CONFIG: join(tmp.dir, 'apt.conf'),
        },
      },
    );
    const recap = /localhost\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)/.exec(r.out);
    // Secrets never appear in what Ansible prints, not even a piece of one. A hex piece counts
    // where it is not inside a longer hex run: at -v Ansible prints each file's sha1 and md5, and
    // "5e1f" inside a checksum is chance (about 1 in 1000 a checksum), not a leak.
    for (const secret of [HRMS_TOKEN, FRAPPE_KEY, FRAPPE_SECRET, String(COMM_KEY)]) expectNoSecret(r.all, secret);
    const pieceAt = (piece: string) =>
      /^[0-9a-f]+$/.test(piece) ? new RegExp(`(?<![0-9a-fA-F])${piece}(?![0-9a-fA-F])`) : new RegExp(piece);
    for (const piece of SECRET_PIECES) expect(r.all, `secret piece ${piece}`).not.toMatch(pieceAt(piece));
    return {
      ...r,
      changed: recap ? Number(recap[2]) : NaN,
      failed: recap ? Number(recap[4]) : NaN,
    };
  };
  const daemonSaid = (text: string) => daemon!.output().split(text).length - 1;

  /**
   * ansible-lint, the example inventory and the playbook's syntax check: they read contrib/ansible
   * alone, never this machine, so they run on the other core while the plays run (ansible-lint
   * takes about 20 s); the last test reads their results.
   */
  let linted: Promise<{ lint: Ran; inv: Ran; syntax: Ran }> | undefined;
  const lintContrib = async () => {
    const env = {
      ...process.env,
      ANSIBLE_VAULT_PASSWORD_FILE: join(CONTRIB, 'example-vault-password'),
      ANSIBLE_NOCOLOR: '1',
    };
    const lint = await shAsync('ansible-lint', ['--nocolor'], { cwd: CONTRIB, env });
    const inv = await shAsync('ansible-inventory', ['--list'], { cwd: CONTRIB, env });
    const syntax = await shAsync('ansible-playbook', ['--syntax-check', 'site.yml'], { cwd: CONTRIB, env });
    return { lint, inv, syntax };
  };

  beforeAll(async () => {
    requireBuilt();
    linted = lintContrib();
    const found = leftovers();
    if (found.length > 0) {
      throw new Error(
        `this machine already has ${found.join(', ')}: the test installs and removes punchgate, run it where there is none (CI)`,
      );
    }
    sh('chmod', ['0755', tmp.dir]);
    // The role's folder for .deb files, left by a run that was killed before its cleanup: the .deb
    // route's test counts its creation among the changes.
    sh('rm', ['-rf', '/var/cache/punchgate-ansible']);
    hrms = await startHrmsSim({ tokens: [HRMS_TOKEN] });
    terminal = await startTerminalSim({
      commKey: COMM_KEY,
      users: [{ uid: 1, userId: '1001', name: 'A' }],
      punches: Array.from({ length: 30 }, (_, i) => ({
        userId: '1001',
        logTime: new Date(Date.now() - 3_600_000 + i * 60_000).toISOString().slice(0, 19).replace('T', ' '),
      })),
    });
    frappe = await startFrappeSim({
      keys: [{ key: FRAPPE_KEY, secret: FRAPPE_SECRET }],
      employees: [{ fields: { attendance_device_id: '1001' } }],
    });
    statusPort = await freePort();
    // The secrets as a site keeps them: an ansible-vault encrypted vars file, each text marked
    // !unsafe (role README: Ansible would read "{{" in it as a template). A JSON string is a YAML
    // double-quoted scalar.
    const unsafe = (text: string) => `!unsafe ${JSON.stringify(text)}`;
    writeFileSync(join(tmp.dir, 'vault-pass'), 'test-vault-password\n');
    writeFileSync(
      join(tmp.dir, 'vault.yml'),
      [
        `vault_hrms_token: ${unsafe(HRMS_TOKEN)}`,
        'vault_terminal_secrets:',
        `  gate-1: { commKey: ${COMM_KEY} }`,
        'vault_sink_secrets:',
        `  erp: { apiKey: ${unsafe(FRAPPE_KEY)}, apiSecret: ${unsafe(FRAPPE_SECRET)} }`,
        '',
      ].join('\n'),
    );
    const enc = sh('ansible-vault', [
      'encrypt',
      '--vault-password-file',
      join(tmp.dir, 'vault-pass'),
      join(tmp.dir, 'vault.yml'),
    ]);
    expect(enc.status, enc.all).toBe(0);
    expect(readFileSync(join(tmp.dir, 'vault.yml'), 'utf8')).toMatch(/^\$ANSIBLE_VAULT;1\.1;AES256/);
    // The signed repository, as test/package/repo.test.ts makes it, on loopback.
    mkdirSync(gnupg, { mode: 0o700 });
    const keyEnv = { env: { ...process.env, GNUPGHOME: gnupg } };
    const gen = sh(
      'gpg',
      [
        '--batch',
        '--passphrase',
        '',
        '--quick-gen-key',
        'punchgate test <repo@example.org>',
        'ed25519',
        'sign',
        'never',
      ],
      keyEnv,
    );
    expect(gen.status, gen.all).toBe(0);
    const repo = join(tmp.dir, 'repo');
    const add = sh(
      'node',
      ['dist/packaging/repo.js', '--repo', repo, '--key', 'repo@example.org', debOf('amd64'), debOf('arm64')],
      keyEnv,
    );
    expect(add.status, add.all).toBe(0);
    server = await serveFolder(join(repo, 'public'));
    // apt with this test's own sources, lists and cache (the role's sources entry goes there).
    for (const d of [sources, join(tmp.dir, 'lists', 'partial'), join(tmp.dir, 'cache', 'archives', 'partial')])
      mkdirSync(d, { recursive: true });
    writeFileSync(
      join(tmp.dir, 'apt.conf'),
      [
        'Dir::Etc::SourceList "/dev/null";',
        `Dir::Etc::SourceParts "${sources}";`,
        `Dir::State::Lists "${join(tmp.dir, 'lists')}";`,
        `Dir::Cache "${join(tmp.dir, 'cache')}";`,
        // Another apt or dpkg on the machine: wait for it.
        'DPkg::Lock::Timeout "300";',
        '',
      ].join('\n'),
    );
    keyringWritten = !existsSync(KEYRING);
    writeFileSync(
      join(tmp.dir, 'play.yml'),
      '- name: Punchgate on this box\n  hosts: punchgate\n  become: false\n  roles:\n    - role: punchgate\n',
    );
  });

  afterAll(async () => {
    await linted?.catch(() => undefined);
    if (daemon) await stop(daemon);
    cleanMachine();
    sh('rm', ['-rf', '/var/cache/punchgate-ansible']);
    if (keyringWritten) rmSync(KEYRING, { force: true });
    await server?.close();
    sh('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: gnupg } });
    await terminal?.stop();
    await frappe?.stop();
    await hrms?.stop();
    tmp.cleanup();
  });

  it('the first run installs the package from the signed repository, writes the vaulted secrets (0640 root:punchgate) and the checked config', async () => {
    const r = await play();
    expect(r.status, r.all).toBe(0);
    expect(r.failed).toBe(0);
    expect(r.changed).toBeGreaterThanOrEqual(5);
    expect(sh('dpkg-query', ['-W', '-f', '${Status}', 'punchgate']).out).toBe('install ok installed');
    // From the repository: its key, its deb822 entry, the package fetched from the server.
    expect(readFileSync(KEYRING)).toEqual(readFileSync(join(tmp.dir, 'repo', 'public', 'punchgate.gpg')));
    expect(readFileSync(join(sources, 'punchgate.sources'), 'utf8')).toContain(
      `URIs: ${server.url}\nSuites: stable\nComponents: main\nSigned-By: ${KEYRING}\n`,
    );
    expect(server.served).toContain(`/pool/main/p/punchgate/punchgate_${VERSION}_amd64.deb`);
    const user = serviceUser();
    const secretFiles = ['/etc/punchgate/token', '/etc/punchgate/sink-erp.apiKey', '/etc/punchgate/sink-erp.apiSecret'];
    for (const f of [...secretFiles, CONFIG]) {
      const s = statSync(f);
      expect({ file: f, mode: s.mode & 0o777, uid: s.uid, gid: s.gid }).toEqual({
        file: f,
        mode: 0o640,
        uid: 0,
        gid: user.gid,
      });
    }
    // Each secret as it is in the vault, one line.
    expect(secretFiles.map((f) => readFileSync(f, 'utf8'))).toEqual(
      [HRMS_TOKEN, FRAPPE_KEY, FRAPPE_SECRET].map((v) => `${v}\n`),
    );
    // The config is the variables, each key as given, plus the files of the secrets.
    const vars = hostVars();
    const config = parse(readFileSync(CONFIG, 'utf8')) as Record<string, unknown>;
    expect(config).toEqual({
      site: 'ansibletest',
      journal: { path: '/var/lib/punchgate/journal.db' },
      hrms: { ...vars.punchgate_hrms, tokenFile: '/etc/punchgate/token' },
      sinks: [
        {
          ...vars.punchgate_sinks[0],
          apiKeyFile: '/etc/punchgate/sink-erp.apiKey',
          apiSecretFile: '/etc/punchgate/sink-erp.apiSecret',
        },
      ],
      delivery: vars.punchgate_delivery,
      status: vars.punchgate_status,
      terminals: [{ ...vars.punchgate_terminals[0], commKey: COMM_KEY }],
    });
    // The service as the test runs it (no systemd here): as the service user, on that config.
    daemon = start('/usr/bin/punchgate', ['run', '--config', CONFIG], user);
    writeFileSync(pidFile, String(daemon.child.pid));
    // The secrets work: the HRMS takes the token, Frappe the key and secret.
    await waitFor(
      () => hrms.attendance().length === 30 && frappe.checkins().length === 30,
      60_000,
      `30 punches at the HRMS and at Frappe (${daemon.output().slice(-2000)})`,
    );
  });

  it('the second run changes nothing (changed=0) and reloads nothing; -vvv shows no secret', async () => {
    const r = await play({}, '-vvv');
    expect(r.status, r.all).toBe(0);
    expect(r.changed, r.out).toBe(0);
    expect(r.out).not.toContain('RUNNING HANDLER');
    expect(daemonSaid('SIGHUP')).toBe(0);
  });

  it('a changed variable rewrites the config and reloads the running daemon once', async () => {
    const before = sha(CONFIG);
    const r = await play({ punchgate_delivery: CHANGED_DELIVERY });
    expect(r.status, r.all).toBe(0);
    expect(r.changed).toBe(2); // the config, and the reload handler
    expect(r.out).toContain('RUNNING HANDLER [punchgate : Reload punchgate (command)]');
    expect(sha(CONFIG)).not.toBe(before);
    await waitFor(
      () => daemonSaid('config reloaded') === 1,
      30_000,
      `the daemon to reload (${daemon!.output().slice(-2000)})`,
    );
    expect(daemonSaid('SIGHUP')).toBe(1);
  });

  /** Each broken variable, and what the failed play says (punchgate's own words, or the role's check). */
  const BROKEN: { what: string; override: () => Record<string, unknown>; says: RegExp }[] = [
    {
      what: 'a number as text',
      override: () => ({ punchgate_delivery: { batchSize: 'lots' } }),
      // With the key (the temporary file's line).
      says: /delivery\.batchSize: must be a number, got the text \\?"lots\\?"/,
    },
    {
      what: 'an HRMS address that is not a URL',
      override: () => ({ punchgate_hrms: { baseUrl: 'hr.example.com' } }),
      says: /hrms\.baseUrl: must begin with its scheme and two slashes, such as https:\/\/hr\.example\.com/,
    },
    {
      what: 'an unknown terminal kind',
      override: () => ({ punchgate_terminals: [{ ...hostVars().punchgate_terminals[0], kind: 'zkteco' }] }),
      says: /terminals\[0\] \(gate-1\)\.kind: must be one of \\?"zk\\?", .*got the text \\?"zkteco\\?"/,
    },
    {
      what: 'a vault variable that is not defined',
      override: () => ({ punchgate_hrms_token: '{{ vault_hrms_token_of_another_box }}' }),
      says: /a secret could not be read; .*every vault variable the inventory names is defined/,
    },
    {
      what: 'a secret of two lines',
      override: () => ({ punchgate_hrms_token: 'first-line\nsecond-line' }),
      says: /the check that failed: punchgate_hrms_token \| string is match\(punchgate_one_line\); each\s+secret is one line/,
    },
  ];

  it.each(BROKEN)(
    'a broken variable ($what) fails the play on this box; the config, the secrets and the running daemon stay as they were',
    async ({ override, says }) => {
      const before = [CONFIG, '/etc/punchgate/token'].map(sha);
      const r = await play(override());
      expect(r.status, r.all).not.toBe(0);
      expect(r.failed).toBe(1);
      expect(r.out).toMatch(says);
      expect(r.out).not.toContain('second-line');
      expect(r.out).not.toContain('RUNNING HANDLER');
      expect([CONFIG, '/etc/punchgate/token'].map(sha)).toEqual(before);
      expect(daemon!.child.exitCode).toBeNull();
      expect(daemonSaid('SIGHUP')).toBe(1);
      const res = await fetch(`http://127.0.0.1:${statusPort}/status.json`);
      const status = (await res.json()) as { site: string; config?: { failure?: unknown } | null };
      expect(res.status).toBe(200);
      expect(status.site).toBe('ansibletest');
      expect(status.config?.failure ?? null).toBeNull();
    },
  );

  it('after the failed runs the daemon still delivers on its old config', async () => {
    const n = hrms.attendance().length;
    terminal.addPunch({ userId: '1001', logTime: new Date().toISOString().slice(0, 19).replace('T', ' ') });
    await waitFor(() => hrms.attendance().length === n + 1, 30_000, 'the punch after the failed runs');
    expect(daemonSaid('SIGHUP')).toBe(1);
  });

  it('a --check --diff run of the .deb route before the file was ever copied (fleet.md: what would change) fails nothing, changes nothing and says the install would happen', async () => {
    const before = [CONFIG, '/etc/punchgate/token'].map(sha);
    const r = await play(
      { punchgate_install_from: 'deb', punchgate_deb: debOf('amd64'), punchgate_delivery: CHANGED_DELIVERY },
      '-v',
      ['--check', '--diff'],
    );
    expect(r.status, r.all).toBe(0);
    expect(r.failed).toBe(0);
    expect(r.out).toContain(`punchgate_${VERSION}_amd64.deb would be installed`);
    expect(existsSync('/var/cache/punchgate-ansible')).toBe(false);
    expect([CONFIG, '/etc/punchgate/token'].map(sha)).toEqual(before);
    expect(daemonSaid('SIGHUP')).toBe(1);
  });

  it('the .deb route over the installed package: the file copied, the same version left as it is, nothing reloaded', async () => {
    const viaDeb = {
      punchgate_install_from: 'deb',
      punchgate_deb: debOf('amd64'),
      punchgate_delivery: CHANGED_DELIVERY,
    };
    const r = await play(viaDeb);
    expect(r.status, r.all).toBe(0);
    expect(r.out).toContain('TASK [punchgate : Copy the package to the box]');
    expect(r.changed, r.out).toBe(2); // the folder and the copy; apt finds the version installed
    expect(sh('dpkg-query', ['-W', '-f', '${Version}', 'punchgate']).out).toBe(VERSION);
    expect(daemonSaid('SIGHUP')).toBe(1);
    expect((await play(viaDeb)).changed).toBe(0);
  });

  it('ansible-lint passes with the production profile; the example inventory of three sites decrypts and the playbook parses', async () => {
    const { lint, inv, syntax } = await linted!;
    expect(lint.status, lint.all).toBe(0);
    expect(lint.all).toMatch(/Passed with production profile: 0 failure\(s\), 0 warning\(s\)/);
    expect(inv.status, inv.all).toBe(0);
    const list = JSON.parse(inv.out) as {
      _meta: { hostvars: Record<string, Record<string, unknown>> };
      canary: { hosts: string[] };
      rest: { hosts: string[] };
    };
    expect(list.canary.hosts).toEqual(['plant-a.example.org']);
    expect(list.rest.hosts.sort()).toEqual(['office-c.example.org', 'plant-b.example.org']);
    const sites = Object.values(list._meta.hostvars).map((v) => v.punchgate_site);
    expect(sites.sort()).toEqual(['office-c', 'plant-a', 'plant-b']);
    // The vaulted values decrypt with the example's password.
    expect(list._meta.hostvars['plant-b.example.org']!.vault_punchgate_terminal_secrets).toEqual({
      'main-door': { commKey: 0 },
      reception: { password: 'example-hikvision-password' },
    });
    expect(syntax.status, syntax.all).toBe(0);
  });
});
