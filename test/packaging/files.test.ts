/**
 * The files the package build writes from the repository's own (packaging/lib): the unit, the
 * launcher, the man page, the Debian changelog, the copyright file's licence references and the
 * native modules' closure. Quick, no package built (test/package checks the built packages).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { scriptLaunch } from '../../bench/lib/unit.js';
import { debianChangelog } from '../../packaging/lib/changelog.js';
import { referToCommonLicences } from '../../packaging/lib/copyright.js';
import { manPage, roff } from '../../packaging/lib/man-page.js';
import { closure } from '../../packaging/lib/modules.js';
import { SHIPPED_CONTRIB, SHIPPED_CONTRIB_PATH } from '../../packaging/lib/payload.js';
import { launcher, packagedUnit } from '../../packaging/lib/unit.js';
import { buildProgram } from '../../src/cli/program.js';
import { tempDir } from '../helpers/tmp.js';

const tmp = tempDir('punchgate-packaging-');
afterAll(() => tmp.cleanup());

const UNIT = readFileSync('systemd/punchgate.service', 'utf8');
const PACKAGED_EXEC =
  'ExecStart=/usr/lib/punchgate/bin/node --optimize-for-size /usr/lib/punchgate/dist/punchgate.js run --config /etc/punchgate/punchgate.yaml';

const PACKAGED_RELOAD_CHECK =
  'ExecReload=/usr/bin/punchgate check --config-only --config /etc/punchgate/punchgate.yaml';

describe("the package's unit", () => {
  const unit = packagedUnit(UNIT);

  it("runs the package's runtime and bundle with the unit's node flags; every other line is the repository's", () => {
    const lines = unit.split('\n');
    expect(lines.filter((l) => l.startsWith('ExecStart='))).toEqual([PACKAGED_EXEC]);
    // The reload checks the config with the package's launcher first (the box may have no node).
    expect(lines.filter((l) => l.startsWith('ExecReload='))).toEqual([
      PACKAGED_RELOAD_CHECK,
      'ExecReload=/bin/kill -HUP $MAINPID',
    ]);
    const settings = (text: string) =>
      text
        .split('\n')
        .filter(
          (l) => /^[A-Z]\w*=/.test(l) && !l.startsWith('ExecStart=') && !/^ExecReload=\S*(node|punchgate) /.test(l),
        );
    expect(settings(unit)).toEqual(
      settings(UNIT).flatMap((l) => (l.startsWith('Description=') ? [l, 'Documentation=man:punchgate(1)'] : [l])),
    );
    expect(unit).not.toMatch(/npm install|\/usr\/bin\/node|\/usr\/local\/bin/);
  });

  it('passes systemd-analyze verify (its binary exists on the box, here a stand-in)', () => {
    const copy = join(tmp.dir, 'punchgate.service');
    writeFileSync(
      copy,
      unit
        .replace(PACKAGED_EXEC, `ExecStart=${process.execPath} --version`)
        .replace(PACKAGED_RELOAD_CHECK, `ExecReload=${process.execPath} --version`),
    );
    const r = spawnSync('systemd-analyze', ['verify', '--man=no', '--generators=no', copy], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(`${r.stdout}${r.stderr}`.split('\n').filter((l) => l.includes('punchgate.service'))).toEqual([]);
    expect(r.status).toBe(0);
  });

  it('refuses a unit whose ExecStart= it cannot read, instead of shipping it unchanged', () => {
    expect(() => packagedUnit(UNIT.replace(/^ExecStart=.*$/m, 'ExecStart=/usr/bin/punchgate-wrapper'))).toThrow(
      /ExecStart=/,
    );
  });
});

describe('/usr/bin/punchgate', () => {
  it("gives the package's runtime the settings of the CLI's #! line, on any /bin/sh", () => {
    const { env, nodeArgs } = scriptLaunch();
    const script = join(tmp.dir, 'punchgate');
    writeFileSync(script, launcher());
    expect(spawnSync('sh', ['-n', script]).status).toBe(0);
    expect(launcher()).toBe(
      [
        '#!/bin/sh',
        "# punchgate on its own Node.js runtime (the box's node, if any, is not used), with the memory",
        '# settings of the systemd unit (/usr/lib/systemd/system/punchgate.service) for commands run by hand.',
        `export ${Object.entries(env)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}`,
        `exec /usr/lib/punchgate/bin/node ${nodeArgs.join(' ')} /usr/lib/punchgate/dist/punchgate.js "$@"`,
        '',
      ].join('\n'),
    );
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']));
  });
});

describe('the man page', () => {
  const program = buildProgram();
  const page = manPage(program, {
    version: '9.9.9',
    date: '2026-11-26',
    replace: [[process.cwd(), '/usr/lib/punchgate']],
  });

  /** Every command path of the CLI (`sim hrms`). */
  const paths = (cmd: Command, above: string[] = []): string[] =>
    cmd.commands
      .filter((c) => c.name() !== 'help')
      .flatMap((c) => [[...above, c.name()].join(' '), ...paths(c, [...above, c.name()])]);

  it('has a section for every command of --help, with its options, and the sections --help lacks', () => {
    const all = paths(program);
    expect(all.length).toBeGreaterThan(25);
    for (const p of all) expect(page, p).toContain(`.SS "punchgate ${roff(p)}`);
    expect(page).toContain(`.B ${roff('--state <state>')}`);
    expect(page).toContain(roff('print only how many punches match'));
    for (const s of [
      'NAME',
      'SYNOPSIS',
      'DESCRIPTION',
      'OPTIONS',
      'COMMANDS',
      'EXIT STATUS',
      'ENVIRONMENT',
      'FILES',
      'SEE ALSO',
    ]) {
      expect(page).toContain(`.SH ${s}\n`);
    }
    expect(page).not.toContain(process.cwd());
  });

  it('man renders it without a warning', () => {
    const file = join(tmp.dir, 'punchgate.1');
    writeFileSync(file, page);
    const r = spawnSync('man', ['--warnings', '-E', 'UTF-8', '-l', '-Tutf8', '-Z', file], { encoding: 'utf8' });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('roff: a leading dot or quote stays text, backslashes and hyphens are escaped', () => {
    expect(roff(".hidden\n'quoted\na-b \\n")).toBe("\\&.hidden\n\\&'quoted\na\\-b \\en");
  });
});

describe('the Debian changelog from CHANGELOG.md', () => {
  const markdown = readFileSync('CHANGELOG.md', 'utf8');
  const parse = (text: string, field: string) => {
    const file = join(tmp.dir, `changelog-${field}`);
    writeFileSync(file, text);
    const r = spawnSync('dpkg-parsechangelog', ['-l', file, '--all', '-S', field], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    return r.stdout.trim();
  };
  const maintainer = 'punchgate maintainers <punchgate@example.org>';

  it('a released version: its entry and the older ones, as dpkg-parsechangelog reads them', () => {
    const released = [...markdown.matchAll(/^## \[(\d[^\]]*)\] - (\d{4}-\d{2}-\d{2})/gm)].map((m) => m[1]!);
    expect(released.length).toBeGreaterThan(0);
    const text = debianChangelog({ markdown, version: released[0]!, maintainer, time: 0 });
    expect(parse(text, 'Version').split('\n')).toEqual(released);
    expect(text).toContain(`punchgate (${released[0]}) stable; urgency=medium`);
    for (const line of text.split('\n').filter((l) => l.startsWith('  '))) expect(line.length, line).toBeLessThan(81);
  });

  it('a development build: the Unreleased section under its own version, on top', () => {
    const text = debianChangelog({ markdown, version: '0.1.0+test1', maintainer, time: Date.UTC(2026, 10, 26) / 1000 });
    expect(parse(text, 'Version').split('\n')[0]).toBe('0.1.0+test1');
    expect(text).toContain(' -- punchgate maintainers <punchgate@example.org>  Thu, 26 Nov 2026 00:00:00 +0000');
  });
});

describe('the copyright file', () => {
  it('refers to the Apache License 2.0 in /usr/share/common-licenses instead of quoting it', () => {
    const apache = [
      '  """',
      '                                 Apache License',
      '                           Version 2.0, January 2004',
      '                        http://www.apache.org/licenses/',
      '   TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION',
      '   1. Definitions.',
      '   END OF TERMS AND CONDITIONS',
      '  """',
    ].join('\n');
    const out = referToCommonLicences(`before\n${apache}\nafter`);
    expect(out).not.toContain('TERMS AND CONDITIONS FOR USE');
    expect(out).toContain('/usr/share/common-licenses/Apache-2.0');
    expect(out.startsWith('before\n')).toBe(true);
    expect(out.endsWith('  """\nafter')).toBe(true);
  });
});

describe("the native modules' closure", () => {
  it('is what serialport and unix-dgram require at run time, found as Node finds it, without build-only packages', () => {
    const dirs = closure(process.cwd(), ['serialport', 'unix-dgram']);
    expect(dirs).toEqual(
      expect.arrayContaining([
        'node_modules/serialport',
        'node_modules/@serialport/bindings-cpp',
        'node_modules/@serialport/bindings-cpp/node_modules/@serialport/parser-readline',
        'node_modules/node-gyp-build',
        'node_modules/debug',
        'node_modules/ms',
        'node_modules/unix-dgram',
        'node_modules/bindings',
        'node_modules/file-uri-to-path',
      ]),
    );
    expect(dirs.filter((d) => /\/(nan|node-addon-api|better-sqlite3|zod|pino)$/.test(d))).toEqual([]);
  });
});

describe('the contrib files docs/fleet.md installs on each box', () => {
  const fleet = readFileSync('docs/fleet.md', 'utf8');
  const installLine = (file: string) =>
    fleet.split('\n').filter((l) => /^sudo install /.test(l) && l.includes(`/${file} `));

  it("are installed from the package's copy: a box has the package, not a checkout of this repository", () => {
    // The Prometheus agent and the log uploader run on every box: their files come from the package.
    for (const file of ['agent.yml', 'journal-upload.conf']) {
      const lines = installLine(file);
      expect(lines, file).toHaveLength(1);
      expect(lines[0], file).toContain(`${SHIPPED_CONTRIB_PATH}/`);
    }
  });

  it('that the docs name under the package path are shipped by the package and exist in contrib/', () => {
    const named = [...fleet.matchAll(/\/usr\/share\/doc\/punchgate\/contrib\/([\w-]+)\/([\w.-]+)/g)];
    expect(named.length).toBeGreaterThanOrEqual(2);
    for (const [path, dir, file] of named) {
      expect(SHIPPED_CONTRIB as readonly string[], path).toContain(dir);
      expect(existsSync(join('contrib', dir!, file!)), path).toBe(true);
    }
  });
});
