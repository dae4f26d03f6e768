/**
 * The files that start punchgate in the package: the unit and /usr/bin/punchgate, derived from
 * the repository's (systemd/punchgate.service and the `#!` line of src/cli/main.ts) so that the
 * package runs with exactly the memory settings BENCHMARKS.md measures, on its own runtime.
 */
import { scriptLaunch } from '../../bench/lib/unit.js';

/** Where the package puts the program and its runtime. */
export const LIB = '/usr/lib/punchgate';
export const NODE = `${LIB}/bin/node`;
export const BUNDLE = `${LIB}/dist/punchgate.js`;

const PACKAGE_NOTE = [
  '# Installed by the punchgate package: punchgate and its own Node.js runtime are in /usr/lib/punchgate',
  "# (the box's node, if any, is not used). This file is replaced on upgrade: change settings with",
  '# `systemctl edit punchgate` (a drop-in in /etc/systemd/system/punchgate.service.d/), not here.',
];

/**
 * The repository's unit with ExecStart= running the bundled runtime, and its install note (about
 * npm and /usr/bin/node) replaced by the package's. Anything else is the unit as tested by
 * test/service/systemd-unit.test.ts. Throws when the unit no longer has what is replaced here.
 */
export function packagedUnit(unit: string): string {
  const lines = unit.split('\n');
  const from = lines.findIndex((l) => l.startsWith('# Install'));
  const to = lines.findIndex((l, i) => i > from && /^#\s*$/.test(l));
  const exec = lines.filter((l) => l.startsWith('ExecStart='));
  if (from < 0 || to < 0 || exec.length !== 1) {
    throw new Error('systemd/punchgate.service: expected its "# Install" note and one ExecStart= line');
  }
  const args = /^ExecStart=\S+\s+(.*?)\s*\S*\/punchgate\s+(run .*)$/.exec(exec[0]!);
  if (!args)
    throw new Error(`systemd/punchgate.service: ExecStart= is not "node FLAGS .../punchgate run ...": ${exec[0]}`);
  const out = [...lines.slice(0, from), ...PACKAGE_NOTE, ...lines.slice(to)].map((l) => {
    if (l.startsWith('ExecStart=')) return `ExecStart=${NODE} ${args[1]} ${BUNDLE} ${args[2]}`;
    // The reload's config check (`node .../punchgate check ...`): the package's launcher, since
    // the box may have no node of its own.
    const check = /^ExecReload=\S*node\s+(?:\S+\s+)*?\S*\/punchgate\s+(.*)$/.exec(l);
    return check ? `ExecReload=/usr/bin/punchgate ${check[1]}` : l;
  });
  // The man page, for `systemctl status` and `systemctl help punchgate`.
  const description = out.findIndex((l) => l.startsWith('Description='));
  out.splice(description + 1, 0, 'Documentation=man:punchgate(1)');
  return out.join('\n');
}

const BACKUP_NOTE = [
  '# Installed by the punchgate package, disabled (the package starts nothing by itself). Enable',
  '# the nightly backup with the service: `systemctl enable --now punchgate punchgate-backup.timer`.',
  '# This file is replaced on upgrade: change settings with `systemctl edit punchgate-backup`.',
];

/**
 * contrib/systemd/punchgate-backup.service as the package ships it: its install note (about npm)
 * replaced by the package's; everything else, ExecStart= included (it runs /usr/bin/punchgate,
 * which is the package's launcher here), is the repository's, as test/service/backup-units.test.ts
 * checks it. Throws when the unit no longer has that note.
 */
export function packagedBackupUnit(unit: string): string {
  const lines = unit.split('\n');
  const from = lines.findIndex((l) => l.startsWith('# Install'));
  const to = lines.findIndex((l, i) => i > from && /^#\s*$/.test(l));
  if (from < 0 || to < 0) throw new Error('contrib/systemd/punchgate-backup.service: expected its "# Install" note');
  if (!lines.some((l) => l.startsWith('ExecStart=/usr/bin/punchgate '))) {
    throw new Error('contrib/systemd/punchgate-backup.service: ExecStart= must run /usr/bin/punchgate itself');
  }
  return [...lines.slice(0, from), ...BACKUP_NOTE, ...lines.slice(to)].join('\n');
}

/**
 * /usr/bin/punchgate: a shell script that gives the bundled runtime the settings of the CLI's
 * `#!` line (the unit's memory settings). A script rather than that `env -S` line itself: it
 * runs on any /bin/sh (busybox's env has no -S), and names the runtime by its full path.
 */
export function launcher(): string {
  const { env, nodeArgs } = scriptLaunch();
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return [
    '#!/bin/sh',
    "# punchgate on its own Node.js runtime (the box's node, if any, is not used), with the memory",
    '# settings of the systemd unit (/usr/lib/systemd/system/punchgate.service) for commands run by hand.',
    `export ${vars.join(' ')}`,
    `exec ${NODE} ${nodeArgs.join(' ')} ${BUNDLE} "$@"`,
    '',
  ].join('\n');
}
