/**
 * The packages `npm run package` built (issue 26), read as dpkg, lintian and a box of the other
 * architecture read them: their control fields, their files, lintian's verdict, the tarball, and
 * the arm64 runtime running punchgate under qemu-user. Changes nothing on the machine.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptLaunch } from '../../bench/lib/unit.js';
import { elfMachine } from '../../packaging/lib/elf.js';
import { buildProgram } from '../../src/cli/program.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { sh, shAsync, type Ran } from '../../bench/lib/package-box.js';
import { debOf, requireBuilt, RUNTIME, tarballOf, VERSION } from './files.js';

const ARCHES = [
  { deb: 'amd64', node: 'x64', elf: 'x86-64', machine: 'x86_64' },
  { deb: 'arm64', node: 'arm64', elf: 'aarch64', machine: 'aarch64' },
] as const;

const tmp = tempDir('punchgate-package-');
afterAll(() => tmp.cleanup());

/** Each .deb's files, unpacked once (dpkg-deb -x) into the temporary folder. */
const unpacked = new Map<string, string>();
function unpack(arch: 'amd64' | 'arm64'): string {
  if (!unpacked.has(arch)) {
    const dir = tmp.path(arch);
    mkdirSync(dir);
    const r = sh('dpkg-deb', ['-x', debOf(arch), dir]);
    expect(r.status, r.all).toBe(0);
    unpacked.set(arch, dir);
  }
  return unpacked.get(arch)!;
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** `Key=value` lines of the unit's [Service] section, comments dropped. */
const serviceLines = (unit: string) =>
  unit
    .slice(unit.search(/^\[Service\]$/m), unit.search(/^\[Install\]$/m))
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'));

/** Every command path of the CLI (`sim hrms`), as --help lists them. */
function commandPaths(program: Command, above: string[] = []): string[] {
  return program.commands
    .filter((c) => c.name() !== 'help')
    .flatMap((c) => [[...above, c.name()].join(' '), ...commandPaths(c, [...above, c.name()])]);
}

describe('the packages npm run package built', () => {
  /**
   * lintian reads the two .deb files alone and takes the longest here (about 50 s of CPU): it
   * runs beside the other tests (one core each) from the start; its test, the last, reads what it said.
   */
  let linted: Promise<Ran> | undefined;
  beforeAll(() => {
    requireBuilt();
    linted = shAsync('lintian', ['--no-tag-display-limit', '--show-overrides', debOf('amd64'), debOf('arm64')]);
  });
  afterAll(async () => {
    await linted?.catch(() => undefined);
  });

  it('a .deb and a tarball per architecture, named after the version, each within 45 MB', () => {
    for (const { deb } of ARCHES) {
      for (const f of [debOf(deb), tarballOf(deb)]) expect(statSync(f).size, f).toBeLessThanOrEqual(45e6);
    }
  });

  describe.each(ARCHES)('$deb', ({ deb, node, elf }) => {
    it('control: the version of package.json, its architecture, Depends only on the C and C++ libraries, the conffile and the maintainer scripts', () => {
      const field = (name: string) => sh('dpkg-deb', ['--field', debOf(deb), name]).out.trim();
      expect(field('Package')).toBe('punchgate');
      expect(field('Version')).toBe(VERSION);
      expect(field('Architecture')).toBe(deb);
      const depends = field('Depends').split(/,\s*/);
      // The runtime is inside: never nodejs, nor anything the box would have to build with.
      expect(depends.map((d) => d.split(' ')[0])).toEqual(['libc6', 'libgcc-s1', 'libstdc++6']);
      expect(depends[0]).toMatch(/^libc6 \(>= 2\.\d+\)$/);
      const control = tmp.path(`${deb}-control`);
      expect(sh('dpkg-deb', ['-e', debOf(deb), control]).status).toBe(0);
      expect(readFileSync(join(control, 'conffiles'), 'utf8')).toBe('/etc/punchgate/punchgate.yaml\n');
      for (const s of ['postinst', 'prerm', 'postrm']) {
        expect(statSync(join(control, s)).mode & 0o777, s).toBe(0o755);
        expect(sh('sh', ['-n', join(control, s)]).status, `${s} parses`).toBe(0);
      }
      // prerm and postrm look for the journals of the state folder the same way (one text, in both).
      const listOf = (s: string) => /^LIST_JOURNALS='[\s\S]*?^'$/m.exec(readFileSync(join(control, s), 'utf8'))?.[0];
      expect(listOf('prerm')).toBeDefined();
      expect(listOf('postrm')).toBe(listOf('prerm'));
      // The size dpkg shows before installing is the size of what it unpacks.
      const kib = Number(field('Installed-Size'));
      const real = files(unpack(deb)).reduce((s, f) => s + Math.ceil(statSync(join(unpack(deb), f)).size / 1024), 0);
      expect(Math.abs(kib - real)).toBeLessThan(64);
    });

    it('files: the runtime, the bundle, native modules of its architecture only, the unit, the user, the config, the man page', () => {
      const root = unpack(deb);
      const all = files(root);
      const lib = 'usr/lib/punchgate';
      for (const f of [
        'usr/bin/punchgate',
        `${lib}/bin/node`,
        `${lib}/dist/punchgate.js`,
        `${lib}/package.json`,
        `${lib}/config/demo.yaml`,
        `${lib}/node_modules/better-sqlite3-napi/build/Release/better_sqlite3.node`,
        `${lib}/node_modules/unix-dgram/build/Release/unix_dgram.node`,
        `${lib}/node_modules/serialport/package.json`,
        'usr/lib/systemd/system/punchgate.service',
        'usr/lib/systemd/system/punchgate-backup.service',
        'usr/lib/systemd/system/punchgate-backup.timer',
        'usr/lib/sysusers.d/punchgate.conf',
        'usr/lib/modules-load.d/punchgate.conf',
        'etc/punchgate/punchgate.yaml',
        'usr/share/man/man1/punchgate.1.gz',
        'usr/share/doc/punchgate/copyright',
        'usr/share/doc/punchgate/changelog.gz',
        // docs/fleet.md installs these on each box from the package's copy.
        'usr/share/doc/punchgate/contrib/prometheus/agent.yml',
        'usr/share/doc/punchgate/contrib/prometheus/alerts.yml',
        'usr/share/doc/punchgate/contrib/journald/journal-upload.conf',
        'usr/share/doc/punchgate/contrib/journald/journal-remote.conf',
        'usr/share/doc/punchgate/contrib/grafana/punchgate-fleet.json',
      ]) {
        expect(all, f).toContain(f);
      }
      expect(JSON.parse(readFileSync(join(root, lib, 'package.json'), 'utf8'))).toMatchObject({
        version: VERSION,
        type: 'module',
      });
      expect(readFileSync(join(root, 'etc/punchgate/punchgate.yaml'), 'utf8')).toBe(
        readFileSync('config/punchgate.example.yaml', 'utf8'),
      );
      for (const f of ['usr/bin/punchgate', `${lib}/bin/node`])
        expect(statSync(join(root, f)).mode & 0o777, f).toBe(0o755);
      // The config may hold credentials: never world-readable, not even between unpack and postinst.
      expect(statSync(join(root, 'etc/punchgate/punchgate.yaml')).mode & 0o777).toBe(0o640);
      // The nightly backup runs /usr/bin/punchgate itself (the launcher), never `node /usr/bin/punchgate`.
      const backupUnit = readFileSync(join(root, 'usr/lib/systemd/system/punchgate-backup.service'), 'utf8');
      expect(backupUnit).toMatch(/^ExecStart=\/usr\/bin\/punchgate backup \/var\/lib\/punchgate\/backups --keep 14 /m);
      expect(backupUnit).not.toMatch(/^ExecStart=\S*node/m);
      expect(backupUnit).toContain('Installed by the punchgate package, disabled');

      // Every binary is built for this architecture: the runtime, and one of each native module.
      const binaries = all.filter((f) => elfMachine(join(root, f)) !== undefined);
      expect(binaries).toEqual([
        `${lib}/bin/node`,
        `${lib}/node_modules/@serialport/bindings-cpp/prebuilds/linux-${node}/${readdirSync(join(root, lib, 'node_modules/@serialport/bindings-cpp/prebuilds', `linux-${node}`))[0]}`,
        `${lib}/node_modules/better-sqlite3-napi/build/Release/better_sqlite3.node`,
        `${lib}/node_modules/unix-dgram/build/Release/unix_dgram.node`,
      ]);
      for (const b of binaries) expect(elfMachine(join(root, b)), b).toBe(elf);
      expect(binaries[1]).toMatch(/\.glibc\.node$/);

      // Nothing of the build: no sources, headers, build-only packages, better-sqlite3 12 (Node 20's).
      expect(all.filter((f) => /\.(c|cc|cpp|h|hpp|gyp|gypi|ts)$/.test(f) || f.includes('/deps/'))).toEqual([]);
      for (const gone of ['better-sqlite3', 'node-addon-api', 'nan', 'prebuild-install']) {
        expect(existsSync(join(root, lib, 'node_modules', gone)), gone).toBe(false);
      }
    });

    it('starts punchgate on its own runtime, with the memory settings of the unit and of the CLI script', () => {
      const root = unpack(deb);
      const unit = readFileSync(join(root, 'usr/lib/systemd/system/punchgate.service'), 'utf8');
      const repoUnit = readFileSync('systemd/punchgate.service', 'utf8');
      const exec = (u: string) => serviceLines(u).filter((l) => l.startsWith('ExecStart='));
      expect(exec(unit)).toEqual([
        'ExecStart=/usr/lib/punchgate/bin/node --optimize-for-size /usr/lib/punchgate/dist/punchgate.js run --config /etc/punchgate/punchgate.yaml',
      ]);
      // The reload checks the config with the package's launcher first (the box may have no node).
      expect(serviceLines(unit).filter((l) => l.startsWith('ExecReload='))).toEqual([
        'ExecReload=/usr/bin/punchgate check --config-only --config /etc/punchgate/punchgate.yaml',
        'ExecReload=/bin/kill -HUP $MAINPID',
      ]);
      // Everything else of [Service] is the repository's unit, as test/service/systemd-unit.test.ts checks it.
      const rest = (u: string) =>
        serviceLines(u).filter((l) => !l.startsWith('ExecStart=') && !/^ExecReload=\S*(node|punchgate) /.test(l));
      expect(rest(unit)).toEqual(rest(repoUnit));
      expect(unit).toContain('Documentation=man:punchgate(1)');
      expect(unit).not.toMatch(/npm install|\/usr\/bin\/node/);

      const launcher = readFileSync(join(root, 'usr/bin/punchgate'), 'utf8');
      const { env, nodeArgs } = scriptLaunch();
      expect(launcher.split('\n')[0]).toBe('#!/bin/sh');
      expect(launcher).toContain(
        `export ${Object.entries(env)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}\n`,
      );
      expect(launcher).toContain(
        `exec /usr/lib/punchgate/bin/node ${nodeArgs.join(' ')} /usr/lib/punchgate/dist/punchgate.js "$@"\n`,
      );
    });

    it('the man page is punchgate(1) from the CLI help: every command, no roff warnings; the changelog is in Debian form', () => {
      const root = unpack(deb);
      const page = join(root, 'usr/share/man/man1/punchgate.1.gz');
      const r = sh('man', ['--warnings', '-E', 'UTF-8', '-l', '-Tutf8', '-Z', page]);
      expect(r.err).toBe('');
      const roff = gunzipSync(readFileSync(page)).toString('utf8');
      expect(roff).toMatch(/^\.TH PUNCHGATE 1 "\d{4}-\d{2}-\d{2}" "punchgate /);
      const paths = commandPaths(buildProgram());
      expect(paths.length).toBeGreaterThan(25);
      for (const p of paths) expect(roff, p).toContain(`.SS "punchgate ${p.replace(/-/g, '\\-')}`);
      // No path of the build machine: the defaults are those of the installed package.
      expect(roff).not.toContain(process.cwd());
      const changelog = tmp.path(`${deb}-changelog`);
      writeFileSync(changelog, gunzipSync(readFileSync(join(root, 'usr/share/doc/punchgate/changelog.gz'))));
      const parsed = sh('dpkg-parsechangelog', ['-l', changelog, '-S', 'Version']);
      expect(parsed.out.trim(), parsed.err).toBe(VERSION);
    });
  });

  describe.each(ARCHES)('the $deb tarball', ({ deb, machine }) => {
    it('holds the .deb files under root/, the maintainer scripts and install.sh for its architecture', () => {
      const name = `punchgate-${VERSION}-linux-${deb}`;
      const list = sh('tar', ['-tzvf', tarballOf(deb)])
        .out.split('\n')
        .filter(Boolean);
      const names = list.map((l) => l.split(/\s+/).slice(5).join(' '));
      const inRoot = names
        .filter((n) => n.startsWith(`${name}/root/`) && !n.endsWith('/'))
        .map((n) => n.slice(`${name}/root/`.length))
        .sort();
      const fromDeb = files(unpack(deb)).filter((f) => !f.startsWith('usr/share/lintian/'));
      expect(inRoot).toEqual(fromDeb);
      for (const s of ['install.sh', 'postinst', 'prerm', 'postrm']) {
        const line = list.find((l) => l.endsWith(`${name}/${s}`));
        // Owned by root whoever built it (tar --numeric-owner: 0/0).
        expect(line, s).toMatch(/^-rwxr-xr-x 0\/0 /);
      }
      const dir = tmp.path(`${deb}-tarball`);
      mkdirSync(dir);
      expect(sh('tar', ['-xzf', tarballOf(deb), '-C', dir, `${name}/install.sh`]).status).toBe(0);
      const install = readFileSync(join(dir, name, 'install.sh'), 'utf8');
      expect(install).toContain(`machine=${machine}\n`);
      expect(install).not.toContain('@');
      if (machine !== 'x86_64') {
        // A tarball of the other architecture says so, before anything else (root or not).
        const r = sh('sh', [join(dir, name, 'install.sh')]);
        expect(r.status).toBe(1);
        expect(r.err).toContain(`this is punchgate for ${deb} (${machine}); this box is x86_64`);
      }
    });
  });

  describe('the arm64 package under qemu-user', () => {
    const root = () => unpack('arm64');
    const lib = () => join(root(), 'usr/lib/punchgate');
    /** Node of the arm64 package, run by qemu-user with the cross C library (Debian's libc6-dev-arm64-cross). */
    const qemu = (args: string[]) =>
      ['qemu-aarch64-static', ['-L', '/usr/aarch64-linux-gnu', join(lib(), 'bin/node'), ...args]] as const;
    const punchgate = (args: string[]) => {
      const [cmd, argv] = qemu(['--optimize-for-size', join(lib(), 'dist/punchgate.js'), ...args]);
      return sh(cmd, argv, { env: { ...process.env, PUNCHGATE_HRMS_TOKEN: '' } });
    };

    it('runs punchgate --version: its own runtime, Node ' + RUNTIME, () => {
      const r = punchgate(['--version']);
      expect(r.status, r.all).toBe(0);
      expect(r.out).toBe(`punchgate ${VERSION} (Node v${RUNTIME})\n`);
    });

    it('punchgate run creates a journal, import ingests into it through better-sqlite3, punches counts them', async () => {
      const dir = tmp.path('arm64-journal');
      mkdirSync(dir);
      const config = join(dir, 'punchgate.yaml');
      // The HRMS is a closed port: the punches stay pending, which is what is counted.
      writeFileSync(
        config,
        'site: arm\njournal:\n  path: journal.db\nhrms:\n  baseUrl: http://127.0.0.1:9\nstatus:\n  listen: false\n',
      );
      const [cmd, argv] = qemu([join(lib(), 'dist/punchgate.js'), '--config', config, 'run']);
      const daemon = spawn(cmd, argv, {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PUNCHGATE_HRMS_TOKEN: 'x' },
      });
      let log = '';
      daemon.stdout.on('data', (d: Buffer) => (log += d.toString()));
      daemon.stderr.on('data', (d: Buffer) => (log += d.toString()));
      const exited = new Promise<number | null>((resolve) => daemon.on('exit', (code) => resolve(code)));
      try {
        await waitFor(() => log.includes('punchgate running'), 120_000, `punchgate run under qemu (log: ${log})`);
        expect(existsSync(join(dir, 'journal.db'))).toBe(true);
        const csv = join(dir, 'punches.csv');
        writeFileSync(
          csv,
          ['biometriccode,logDate', ...[1, 2, 3, 4, 5].map((i) => `10${i},2026-11-20 08:0${i}:00`)].join('\n') + '\n',
        );
        const imported = punchgate(['--config', config, 'import', csv]);
        expect(imported.status, imported.all).toBe(0);
        const count = punchgate(['--config', config, 'punches', '--state', 'undelivered', '--count']);
        expect(count.out, count.all).toBe('5\n');
      } finally {
        daemon.kill('SIGTERM');
      }
      expect(await exited, log).toBe(0);
    });

    it('loads the serialport binding and the sd_notify one (unix-dgram)', () => {
      const script = [
        `const { createRequire } = require('node:module');`,
        `const r = createRequire(${JSON.stringify(join(lib(), 'dist/punchgate.js'))});`,
        `r('serialport'); r('@serialport/bindings-cpp').autoDetect(); r('unix-dgram');`,
        `console.log(JSON.stringify(process.report.getReport().sharedObjects.filter((s) => s.endsWith('.node'))));`,
      ].join('\n');
      const [cmd, argv] = qemu(['-e', script]);
      const r = sh(cmd, argv);
      expect(r.status, r.all).toBe(0);
      const loaded = (JSON.parse(r.out) as string[]).map((s) => relative(lib(), s));
      expect(loaded).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^node_modules\/@serialport\/bindings-cpp\/prebuilds\/linux-arm64\/.*\.glibc\.node$/),
          'node_modules/unix-dgram/build/Release/unix_dgram.node',
        ]),
      );
    });
  });

  it('lintian: no error, no warning that is not overridden, and every override is used and says why', async () => {
    const r = await linted!;
    const lines = r.all.split('\n');
    expect(
      lines.filter((l) => /^[EW]: /.test(l)),
      r.all,
    ).toEqual([]);
    const overrides = readFileSync('packaging/debian/lintian-overrides', 'utf8').split('\n');
    const entries = overrides.map((l, i) => ({ l, i })).filter(({ l }) => l.trim() && !l.startsWith('#'));
    expect(entries.length).toBeGreaterThan(0);
    for (const { l, i } of entries) {
      // A comment right above it (or above the entry it is grouped with) gives the reason.
      let k = i - 1;
      while (k >= 0 && overrides[k]!.trim() && !overrides[k]!.startsWith('#')) k--;
      expect(overrides[k]?.startsWith('#'), `${l}: no comment above it`).toBe(true);
      const tag = l.split(/\s+/)[1]!;
      // Used for the amd64 package at least (each architecture has the same files).
      expect(
        lines.some((x) => x.startsWith(`O: punchgate: ${tag}`)),
        `${tag} is overridden but lintian no longer reports it`,
      ).toBe(true);
    }
  });
});
