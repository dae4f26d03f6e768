import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';

/** Where the box's file systems are meant to be mounted, and where they are mounted now. */
export interface MountTables {
  /** /etc/fstab: the mounts the admin set up. */
  fstab: string;
  /** /proc/self/mountinfo: what this process sees mounted now. */
  mountinfo: string;
  /**
   * The folders of systemd's mount units (`*.mount`, each with its `Where=`, systemd.mount(5)): the
   * admin's (/etc/systemd/system) and the generators' (/run/systemd/generator*). A disk set up by a
   * unit instead of a line in /etc/fstab. None by default (the tables of a test).
   */
  unitDirs?: readonly string[];
}

export const SYSTEM_MOUNT_TABLES: MountTables = {
  fstab: '/etc/fstab',
  mountinfo: '/proc/self/mountinfo',
  unitDirs: [
    '/etc/systemd/system',
    '/run/systemd/system',
    '/run/systemd/generator.early',
    '/run/systemd/generator',
    '/run/systemd/generator.late',
  ],
};

/**
 * The box's tables, or, for the tests only, those in the folder PUNCHGATE_TEST_MOUNT_TABLES (its
 * `fstab`, `mountinfo` and unit folder `system`): a real `punchgate run` is shown a disk that did not
 * come up without a box's /etc/fstab being touched. Unset (as everywhere but those tests): the box's.
 */
export function systemMountTables(env: NodeJS.ProcessEnv = process.env): MountTables {
  const dir = env.PUNCHGATE_TEST_MOUNT_TABLES;
  if (dir === undefined || dir === '') return SYSTEM_MOUNT_TABLES;
  return { fstab: join(dir, 'fstab'), mountinfo: join(dir, 'mountinfo'), unitDirs: [join(dir, 'system')] };
}

/** A mount point meant to be mounted, and the file that says so. */
export interface MeantMount {
  point: string;
  /** /etc/fstab, or the unit file's path. */
  by: string;
}

/** fstab and mountinfo write a space, tab, newline or backslash in a path as `\040` and the like. */
const unescape = (field: string): string =>
  field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

const clean = (p: string): string => {
  const n = normalize(p);
  return n.length > 1 && n.endsWith(sep) ? n.slice(0, -1) : n;
};

/** The mount points /etc/fstab lists (not swap, not `/`); none when the file cannot be read. */
function fstabMountPoints(file: string): MeantMount[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    const f = line.trim().split(/\s+/);
    if (f.length < 3 || f[0]!.startsWith('#')) return [];
    const point = unescape(f[1]!);
    if (f[2] === 'swap' || !isAbsolute(point) || clean(point) === '/') return [];
    return [{ point: clean(point), by: file }];
  });
}

/**
 * The mount points of the `*.mount` units in `dirs` (their [Mount] section's `Where=`; not `/`).
 * An unreadable folder or file, or a unit masked (a link to /dev/null, empty): none from it.
 */
function unitMountPoints(dirs: readonly string[]): MeantMount[] {
  return dirs.flatMap((dir) => {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.mount'));
    } catch {
      return [];
    }
    return names.flatMap((name) => {
      const file = join(dir, name);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return [];
      }
      const where = unitWhere(text);
      if (where === undefined || !isAbsolute(where) || clean(where) === '/') return [];
      return [{ point: clean(where), by: file }];
    });
  });
}

/** A unit file's `Where=` in its [Mount] section (the last one set wins, as systemd reads it). */
function unitWhere(text: string): string | undefined {
  let section = '';
  let where: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) section = line;
    else if (section === '[Mount]' && /^Where\s*=/.test(line)) {
      const value = line.slice(line.indexOf('=') + 1).trim();
      where = value.length > 1 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
    }
  }
  return where;
}

/**
 * `path` with every symbolic link in the part of it that exists followed (a journal folder that is
 * a link onto a disk); the part below a missing folder or a dangling link's target as written.
 * The path itself when a link cannot be read or links go round (40 at most, as the kernel's).
 */
export function linkedPath(path: string): string {
  let rest = resolve(path).split(sep).filter(Boolean);
  let done: string = sep;
  for (let hops = 0; rest.length > 0;) {
    const next = join(done, rest[0]!);
    let target: string | undefined;
    try {
      if (lstatSync(next).isSymbolicLink()) target = readlinkSync(next);
    } catch {
      return join(next, ...rest.slice(1));
    }
    if (target === undefined) {
      done = next;
      rest = rest.slice(1);
      continue;
    }
    if (++hops > 40) return resolve(path);
    rest = [...resolve(dirname(next), target).split(sep).filter(Boolean), ...rest.slice(1)];
    done = sep;
  }
  return done;
}

/** The mount points mounted now (mountinfo's fifth field); undefined when it cannot be read. */
function mountedPoints(file: string): Set<string> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return new Set(
    text.split('\n').flatMap((line) => {
      const f = line.split(' ');
      return f.length > 4 ? [clean(unescape(f[4]!))] : [];
    }),
  );
}

/**
 * The mount point /etc/fstab or a systemd mount unit sets up for `path` (the deepest one above it)
 * when nothing is mounted there now: a disk that did not come up (a USB disk not plugged in, a
 * `nofail` mount that failed). Whatever is written at `path` then lands on the file system below,
 * hidden once the disk comes up. A path reached through a link is asked of where the link leads
 * too. Undefined when no such mount lies above it, it is mounted, or the tables cannot be read (a
 * container without them: nothing to say).
 */
export function unmountedMountPointOf(path: string, tables: MountTables = SYSTEM_MOUNT_TABLES): MeantMount | undefined {
  const targets = [...new Set([clean(resolve(path)), clean(linkedPath(path))])];
  const meant = [...fstabMountPoints(tables.fstab), ...unitMountPoints(tables.unitDirs ?? [])];
  // For each of them, the deepest (a disk mounted inside another is asked of itself).
  const deepest = targets.flatMap((t) => {
    const above = meant
      .filter((m) => t === m.point || t.startsWith(`${m.point}${sep}`))
      .sort((a, b) => b.point.length - a.point.length);
    return above.length > 0 ? [above[0]!] : [];
  });
  if (deepest.length === 0) return undefined;
  const mounted = mountedPoints(tables.mountinfo);
  if (!mounted) return undefined;
  return deepest.find((m) => !mounted.has(m.point));
}
