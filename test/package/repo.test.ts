/**
 * The signed APT repository (issue 34), as a fleet's boxes meet it, on this machine, as root:
 * packaging/repo.ts adds the built .debs of both architectures to a reprepro repository signed
 * with a GnuPG key made here; a static web server publishes it on loopback; this machine trusts it
 * as docs/fleet.md says (the key in /etc/apt/keyrings/punchgate.gpg, a deb822 sources entry with
 * Signed-By) and apt-get alone installs punchgate, upgrades it to a rebuilt newer version while
 * punches flow from a terminal to the HRMS (none lost, none twice), takes it back to the older
 * version, and refuses the repository once its Release is tampered with, signed by another key, or
 * stripped of InRelease (a changed Release beside the old Release.gpg; no signature at all).
 *
 * apt runs with its own sources, lists and cache folders (-o Dir::...): the test reads no other
 * repository (there is no network here) and leaves the machine's apt state as it was; the sources
 * entry is the one docs/fleet.md shows, in that private folder instead of
 * /etc/apt/sources.list.d (another apt-get on this shared machine would otherwise meet a server
 * that is gone). There is no systemd here: the service's restart after the upgrade (postinst's
 * try-restart) is done by the test, as in install.test.ts.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanMachine,
  isRoot,
  leftovers,
  packageStatus,
  SERVICE_ENV,
  serviceUser,
  sh,
  shAsync,
  start,
  STATE,
  stop,
  type Proc,
} from '../../bench/lib/package-box.js';
import { freePort } from '../../bench/lib/ports.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { startTerminalSim, type TerminalSim } from '../../src/sim/terminal/index.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { debOf, requireBuilt, VERSION } from './files.js';
import { serveFolder, type StaticServer } from './static-server.js';

const ROOT = isRoot();
if (!ROOT) {
  process.stdout.write(
    'test/package/repo.test.ts: skipped: installing from the repository needs root (apt-get, a system user); CI runs it as root\n',
  );
}

const BUMPED = `${VERSION}+repo1`;
const KEYRING = '/etc/apt/keyrings/punchgate.gpg';
const CONFIG = '/etc/punchgate/punchgate.yaml';
const TOKEN = '/etc/punchgate/token';
const TOKEN_VALUE = 'repo-test-token';

describe.skipIf(!ROOT)('the signed APT repository, served on loopback, used by apt-get on this machine', () => {
  const tmp = tempDir('punchgate-repo-');
  const repo = join(tmp.dir, 'repo');
  const gnupg = join(tmp.dir, 'gnupg');
  const stranger = join(tmp.dir, 'gnupg-stranger');
  const sources = join(tmp.dir, 'sources.list.d');
  let fingerprint: string;
  let bumpedDeb: string;
  let server: StaticServer;
  let hrms: HrmsSim;
  let terminal: TerminalSim;
  let daemon: Proc | undefined;
  let statusPort: number;
  let keyringWritten = false;
  const figures: Record<string, string> = {};

  /** apt-get with this test's own sources, lists and cache (the machine's stay as they are). */
  const aptArgs = () => [
    '-o',
    'Dir::Etc::SourceList=/dev/null',
    '-o',
    `Dir::Etc::SourceParts=${sources}`,
    '-o',
    `Dir::State::Lists=${join(tmp.dir, 'lists')}`,
    '-o',
    `Dir::Cache=${join(tmp.dir, 'cache')}`,
    '-o',
    'Dpkg::Options::=--force-confold',
    // Another apt or dpkg on the machine (unattended-upgrades, another test): wait for it, as an admin would.
    '-o',
    'DPkg::Lock::Timeout=300',
  ];
  /** Not blocking this process: the repository's web server, the HRMS and the terminal answer from it meanwhile. */
  const apt = (args: string[]) =>
    shAsync('apt-get', [...aptArgs(), ...args], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  const aptCache = (args: string[]) => sh('apt-cache', [...aptArgs(), ...args]);
  const installedVersion = () => sh('dpkg-query', ['-W', '-f', '${Version}', 'punchgate']).out;
  const withKeys = (home: string) => ({ env: { ...process.env, GNUPGHOME: home } });
  const addToRepo = (home: string, args: string[]) =>
    sh('node', ['dist/packaging/repo.js', '--repo', repo, ...args], withKeys(home));
  const newKey = (home: string, name: string) => {
    mkdirSync(home, { mode: 0o700 });
    const r = sh(
      'gpg',
      ['--batch', '--passphrase', '', '--quick-gen-key', `${name} <repo@example.org>`, 'ed25519', 'sign', 'never'],
      withKeys(home),
    );
    expect(r.status, r.all).toBe(0);
    const list = sh('gpg', ['--batch', '--with-colons', '--list-secret-keys'], withKeys(home)).out;
    return /^fpr:+([0-9A-F]{40}):/m.exec(list)![1]!;
  };
  const noKeepAlive = new Agent({ pipelining: 0 });
  const ready = async () => {
    try {
      const res = await request(`http://127.0.0.1:${statusPort}/readyz`, { dispatcher: noKeepAlive });
      await res.body.text();
      return res.statusCode === 200;
    } catch {
      return false;
    }
  };
  /** Every punch at the HRMS once: the count of distinct (code, time), which must equal the rows. */
  const atHrms = () => {
    const rows = hrms.attendance();
    expect(new Set(rows.map((r) => `${r.biometriccode} ${r.logDate}`)).size, 'no punch twice at the HRMS').toBe(
      rows.length,
    );
    return rows.length;
  };

  beforeAll(async () => {
    requireBuilt();
    const found = leftovers();
    if (found.length > 0) {
      throw new Error(
        `this machine already has ${found.join(', ')}: the test installs and removes punchgate, run it where there is none (CI)`,
      );
    }
    sh('chmod', ['0755', tmp.dir]);
    for (const d of [sources, join(tmp.dir, 'lists', 'partial'), join(tmp.dir, 'cache', 'archives', 'partial')])
      mkdirSync(d, { recursive: true });
    fingerprint = newKey(gnupg, 'punchgate test repository');
    // The newer version: the same sources rebuilt with a higher version (modules from the cache).
    const r = sh('node', [
      'dist/packaging/build.js',
      '--arch',
      'amd64',
      '--no-tarball',
      '--version',
      BUMPED,
      '--out',
      join(tmp.dir, 'bumped'),
    ]);
    expect(r.status, r.all).toBe(0);
    bumpedDeb = debOf('amd64', BUMPED, join(tmp.dir, 'bumped'));
    hrms = await startHrmsSim({ tokens: [TOKEN_VALUE] });
    terminal = await startTerminalSim({ users: [{ uid: 1, userId: '1001', name: 'A' }], punches: [] });
  });

  afterAll(async () => {
    if (daemon) await stop(daemon);
    cleanMachine();
    if (keyringWritten) rmSync(KEYRING, { force: true });
    await server?.close();
    for (const home of [gnupg, stranger]) sh('gpgconf', ['--kill', 'gpg-agent'], withKeys(home));
    await terminal?.stop();
    await hrms?.stop();
    tmp.cleanup();
    if (Object.keys(figures).length > 0) {
      process.stdout.write(
        `repository figures:\n${Object.entries(figures)
          .map(([k, v]) => `  ${k}: ${v}`)
          .join('\n')}\n`,
      );
    }
  });

  it('repo.js adds the .debs of both architectures to a repository signed with the given key; its public key is published beside it', async () => {
    const wrongKey = addToRepo(gnupg, ['--key', 'nobody@example.org', debOf('amd64')]);
    expect(wrongKey.status).toBe(1);
    expect(wrongKey.all).toContain('--key nobody@example.org: no secret key of that name');

    const r = addToRepo(gnupg, ['--key', fingerprint, debOf('amd64'), debOf('arm64')]);
    expect(r.status, r.all).toBe(0);
    expect(r.out).toContain(`punchgate ${VERSION} amd64\npunchgate ${VERSION} arm64\n`);
    const pub = join(repo, 'public');
    for (const arch of ['amd64', 'arm64']) {
      const packages = readFileSync(join(pub, 'dists/stable/main', `binary-${arch}`, 'Packages'), 'utf8');
      expect(packages).toContain(`Package: punchgate\nVersion: ${VERSION}\nArchitecture: ${arch}\n`);
      expect(packages).toContain(`Filename: pool/main/p/punchgate/punchgate_${VERSION}_${arch}.deb`);
    }
    const release = readFileSync(join(pub, 'dists/stable/Release'), 'utf8');
    expect(release).toMatch(/^Origin: punchgate\nLabel: punchgate\nSuite: stable\nCodename: stable\n/);
    // The signature verifies with the published key alone (what a box has), and names the key.
    const v = sh('gpgv', ['--keyring', join(pub, 'punchgate.gpg'), join(pub, 'dists/stable/InRelease')]);
    expect(v.status, v.all).toBe(0);
    expect(v.all).toContain(fingerprint.slice(-16));
    // conf/ and db/ are reprepro's: not in what is published.
    expect(sh('ls', [pub]).out.split('\n').filter(Boolean).sort()).toEqual([
      'dists',
      'pool',
      'punchgate.asc',
      'punchgate.gpg',
    ]);
    server = await serveFolder(pub);
  });

  it('a box trusts it (keyring + deb822 entry with Signed-By) and apt-get installs punchgate from it', async () => {
    mkdirSync('/etc/apt/keyrings', { recursive: true, mode: 0o755 });
    // docs/fleet.md: curl -fsSL https://apt.example.com/punchgate.gpg | sudo tee /etc/apt/keyrings/punchgate.gpg
    writeFileSync(KEYRING, readFileSync(join(repo, 'public', 'punchgate.gpg')), { mode: 0o644 });
    keyringWritten = true;
    writeFileSync(
      join(sources, 'punchgate.sources'),
      ['Types: deb', `URIs: ${server.url}/`, 'Suites: stable', 'Components: main', `Signed-By: ${KEYRING}`, ''].join(
        '\n',
      ),
    );
    const update = await apt(['update']);
    expect(update.status, update.all).toBe(0);
    expect(update.all).not.toMatch(/^[WE]:/m);
    expect(aptCache(['policy', 'punchgate']).out).toMatch(new RegExp(`Candidate: ${VERSION.replace(/\./g, '\\.')}\\n`));
    const install = await apt(['install', '-y', '--no-install-recommends', 'punchgate']);
    expect(install.status, install.all).toBe(0);
    expect(packageStatus()).toBe('install ok installed');
    expect(installedVersion()).toBe(VERSION);
    expect(server.served).toContain(`/pool/main/p/punchgate/punchgate_${VERSION}_amd64.deb`);
  });

  it('an upgrade by apt-get to a rebuilt newer version added to the repository, while punches flow: none lost, none twice', async () => {
    // The site's config and token, as the Ansible role or an admin writes them.
    statusPort = await freePort();
    writeFileSync(
      CONFIG,
      [
        'site: repotest',
        'journal:',
        `  path: ${STATE}/journal.db`,
        'hrms:',
        `  baseUrl: ${hrms.url}`,
        `  tokenFile: ${TOKEN}`,
        'delivery:',
        '  batchSize: 20',
        '  pollIntervalMs: 200',
        '  retry: { baseMs: 200, maxMs: 1000 }',
        'status:',
        `  listen: 127.0.0.1:${statusPort}`,
        'terminals:',
        '  - name: gate-1',
        '    kind: zk',
        '    host: 127.0.0.1',
        `    port: ${terminal.port}`,
        '    transport: tcp',
        '    schedule: "* * * * * *"',
        '    timezone: UTC',
        '',
      ].join('\n'),
    );
    writeFileSync(TOKEN, `${TOKEN_VALUE}\n`);
    const user = serviceUser();
    const startDaemon = () => start('/usr/bin/punchgate', ['run', '--config', CONFIG], user);
    daemon = startDaemon();
    await waitFor(ready, 60_000, `the daemon to be ready (${daemon.output().slice(-2000)})`);

    // A punch every 100 ms, each of its own time (an hour ago onwards), for the whole upgrade.
    const base = Date.now() - 3_600_000;
    let n = 0;
    terminal.startPunching(100, () => ({
      userId: String(1001 + (n % 7)),
      logTime: new Date(base + n++ * 1000).toISOString().slice(0, 19).replace('T', ' '),
    }));
    await waitFor(() => atHrms() > 20, 60_000, 'punches at the HRMS before the upgrade');

    // The repository gets the newer version; the box's apt-get sees and installs it.
    const add = addToRepo(gnupg, ['--key', fingerprint, bumpedDeb]);
    expect(add.status, add.all).toBe(0);
    expect(add.out).toContain(`punchgate ${BUMPED} amd64 (replaces ${VERSION})`);
    const update = await apt(['update']);
    expect(update.status, update.all).toBe(0);
    expect(aptCache(['policy', 'punchgate']).out).toContain(`Candidate: ${BUMPED}`);
    const before = terminal.punches().length;
    const upgradeStarted = Date.now();
    const upgrade = await apt(['install', '-y', '--only-upgrade', 'punchgate']);
    expect(upgrade.status, upgrade.all).toBe(0);
    expect(installedVersion()).toBe(BUMPED);
    // The restart systemd's try-restart does in postinst: stop, start on the new files.
    expect(await stop(daemon), daemon.output().slice(-2000)).toBe(0);
    daemon = startDaemon();
    await waitFor(ready, 60_000, `the new daemon to be ready (${daemon.output().slice(-2000)})`);
    figures['apt-get upgrade + restart'] = `${((Date.now() - upgradeStarted) / 1000).toFixed(1)} s`;
    const status = (await (await fetch(`http://127.0.0.1:${statusPort}/status.json`)).json()) as { version: string };
    expect(status.version).toBe(BUMPED);
    // Punches go on for a few seconds on the new version, then stop; all of them reach the HRMS once.
    await waitFor(() => terminal.punches().length > before + 50, 30_000, 'punches during and after the upgrade');
    terminal.stopPunching();
    const made = terminal.punches().length;
    figures['punches made during the test'] = String(made);
    await waitFor(() => atHrms() === made, 60_000, `${made} punches at the HRMS`);
    expect(atHrms()).toBe(made);
    expect(
      sh('runuser', ['-u', 'punchgate', '--', '/usr/bin/punchgate', 'punches', '--state', 'undelivered', '--count'], {
        env: SERVICE_ENV,
      }).out,
    ).toBe('0\n');
  });

  it('back to the older version: refused unless asked for (--allow-downgrade), then apt-get --allow-downgrades installs it', async () => {
    if (daemon) expect(await stop(daemon)).toBe(0);
    daemon = undefined;
    const refused = addToRepo(gnupg, ['--key', fingerprint, debOf('amd64')]);
    expect(refused.status).toBe(1);
    expect(refused.all).toContain(`the repository holds the newer ${BUMPED} for amd64`);
    const back = addToRepo(gnupg, ['--key', fingerprint, '--allow-downgrade', debOf('amd64')]);
    expect(back.status, back.all).toBe(0);
    expect((await apt(['update'])).status).toBe(0);
    const r = await apt(['install', '-y', '--allow-downgrades', `punchgate=${VERSION}`]);
    expect(r.status, r.all).toBe(0);
    expect(installedVersion()).toBe(VERSION);
    expect(readFileSync(CONFIG, 'utf8')).toContain('site: repotest');
  });

  it('a tampered Release is refused by apt, and so is a repository signed by another key, or stripped of its signatures: the box keeps its last good index', async () => {
    const dists = join(repo, 'public', 'dists', 'stable');
    const candidate = () => /Candidate: (\S+)/.exec(aptCache(['policy', 'punchgate']).out)?.[1];
    expect(candidate()).toBe(VERSION);
    // The repository offers the newer version again (signed), and then someone changes its index on
    // the server (here: its description; a forged hash of a forged package is the same to apt).
    expect(addToRepo(gnupg, ['--key', fingerprint, bumpedDeb]).status).toBe(0);
    const good = {
      inRelease: readFileSync(join(dists, 'InRelease'), 'utf8'),
      release: readFileSync(join(dists, 'Release'), 'utf8'),
    };
    const tamper = (text: string) => text.replace('Description: punchgate,', 'Description: not punchgate,');
    writeFileSync(join(dists, 'InRelease'), tamper(good.inRelease));
    writeFileSync(join(dists, 'Release'), tamper(good.release));
    expect(readFileSync(join(dists, 'InRelease'), 'utf8')).not.toBe(good.inRelease);
    // apt refuses the index: it says so (a warning by default; --error-on=any makes it the exit code)
    // and keeps the last good one, so the tampered repository's newer version is not offered.
    const tampered = await apt(['update', '--error-on=any']);
    expect(tampered.status, tampered.all).not.toBe(0);
    expect(tampered.all).toContain('The following signatures were invalid: BADSIG');
    expect(tampered.all).toContain('The repository is not updated and the previous index files will be used');
    figures['apt on a tampered Release'] =
      tampered.all
        .split('\n')
        .find((l) => /BADSIG/.test(l))
        ?.trim() ?? '';
    expect(candidate()).toBe(VERSION);
    expect((await apt(['install', '-y', '--only-upgrade', 'punchgate'])).status).toBe(0);
    expect(installedVersion()).toBe(VERSION);

    // The index signed again, by a key the box does not trust.
    newKey(stranger, 'someone else');
    const resigned = addToRepo(stranger, ['--key', 'someone else', bumpedDeb]);
    expect(resigned.status, resigned.all).toBe(0);
    const strangers = await apt(['update', '--error-on=any']);
    expect(strangers.status, strangers.all).not.toBe(0);
    expect(strangers.all).toContain('NO_PUBKEY');
    expect(candidate()).toBe(VERSION);

    // InRelease stripped from the server: apt falls back to Release and its detached signature
    // Release.gpg. A changed Release beside the old Release.gpg is refused (BADSIG); with
    // Release.gpg gone too, the repository reads as unsigned and is refused (a downgrade to an
    // unsigned repository is no way around the key).
    expect(addToRepo(gnupg, ['--key', fingerprint, bumpedDeb]).status).toBe(0);
    rmSync(join(dists, 'InRelease'));
    writeFileSync(join(dists, 'Release'), tamper(readFileSync(join(dists, 'Release'), 'utf8')));
    const detachedBad = await apt(['update', '--error-on=any']);
    expect(detachedBad.status, detachedBad.all).not.toBe(0);
    expect(detachedBad.all).toContain('BADSIG');
    expect(candidate()).toBe(VERSION);
    rmSync(join(dists, 'Release.gpg'));
    const unsigned = await apt(['update']);
    expect(unsigned.status, unsigned.all).not.toBe(0);
    // apt 2.6 says "is no longer signed" of a repository it had signed lists of ("is not signed" else).
    expect(unsigned.all).toMatch(/The repository '.* stable Release' is (no longer|not) signed/);
    expect(candidate()).toBe(VERSION);
    expect(server.served).toContain('/dists/stable/Release');

    // The control: signed by the repository's key again, the same index is taken.
    expect(addToRepo(gnupg, ['--key', fingerprint, bumpedDeb]).status).toBe(0);
    const signed = await apt(['update', '--error-on=any']);
    expect(signed.status, signed.all).toBe(0);
    expect(candidate()).toBe(BUMPED);
  });
});
