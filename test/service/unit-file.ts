import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';

/** `Key=value` lines of one section of a systemd unit, in order (comments and blank lines dropped). */
export function section(text: string, name: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const l = raw.trim();
    if (!l || l.startsWith('#') || l.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(l);
    if (header) {
      current = header[1]!;
      continue;
    }
    if (current !== name) continue;
    const eq = l.indexOf('=');
    out.push([l.slice(0, eq), l.slice(eq + 1)]);
  }
  return out;
}

export function requireTool(tool: string): void {
  const r = spawnSync(tool, ['--version'], { encoding: 'utf8' });
  if (r.error) {
    throw new Error(
      `${tool} is not installed: install systemd (apt-get install -y systemd) so that the units in systemd/ and contrib/ can be verified`,
    );
  }
}

/**
 * `systemd-analyze verify` on copies of units (file name -> text) in one folder, each ExecStart=
 * replaced by a binary that exists here (verify refuses a missing one); everything else is the
 * shipped text. Works without a running systemd. Returns the lines that name one of the units
 * (warnings such as "Unknown key"). `cleanup` is told how to remove the copies.
 */
export function verifyUnits(
  units: Record<string, string>,
  cleanup: (remove: () => void) => void,
): { status: number | null; findings: string[]; output: string } {
  const dir = tempDir('punchgate-unit-');
  cleanup(dir.cleanup);
  const copies = Object.entries(units).map(([name, text]) => {
    const copy = join(dir.dir, basename(name));
    // The programs are not installed here: systemd-analyze checks that they exist.
    writeFileSync(
      copy,
      text
        .replace(/^ExecStart=.+$/m, `ExecStart=${process.execPath} --version`)
        .replace(/^ExecReload=\/usr\/bin\/node .+$/m, `ExecReload=${process.execPath} --version`),
    );
    return copy;
  });
  const r = spawnSync('systemd-analyze', ['verify', '--man=no', '--generators=no', ...copies], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  const output = `${r.stdout}${r.stderr}`;
  const names = Object.keys(units).map((n) => basename(n));
  const findings = output.split('\n').filter((l) => names.some((n) => l.includes(n)));
  return { status: r.status, findings, output };
}
