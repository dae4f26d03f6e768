import { readFileSync } from 'node:fs';
import { isAbsolute, normalize, sep } from 'node:path';

/** Where the box's file systems are meant to be mounted, and where they are mounted now. */
export interface MountTables {
  /** /etc/fstab: the mounts the admin set up. */
  fstab: string;
  /** /proc/self/mountinfo: what this process sees mounted now. */
  mountinfo: string;
}

export const SYSTEM_MOUNT_TABLES: MountTables = { fstab: '/etc/fstab', mountinfo: '/proc/self/mountinfo' };

/** fstab and mountinfo write a space, tab, newline or backslash in a path as `\040` and the like. */
const unescape = (field: string): string =>
  field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

const clean = (p: string): string => {
  const n = normalize(p);
  return n.length > 1 && n.endsWith(sep) ? n.slice(0, -1) : n;
};

/** The mount points /etc/fstab lists (not swap, not `/`); none when the file cannot be read. */
function fstabMountPoints(file: string): string[] {
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
    return [clean(point)];
  });
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
 * The mount point /etc/fstab sets up for `path` (the deepest one above it) when nothing is mounted
 * there now: a disk that did not come up (a USB disk not plugged in, a `nofail` mount that failed).
 * Whatever is written at `path` then lands on the file system below, hidden once the disk comes up.
 * Undefined when no fstab mount lies above it, it is mounted, or the tables cannot be read (a
 * container without them: nothing to say).
 */
export function unmountedMountPointOf(path: string, tables: MountTables = SYSTEM_MOUNT_TABLES): string | undefined {
  const target = clean(path);
  const above = fstabMountPoints(tables.fstab)
    .filter((p) => target === p || target.startsWith(`${p}${sep}`))
    .sort((a, b) => b.length - a.length)[0];
  if (!above) return undefined;
  const mounted = mountedPoints(tables.mountinfo);
  if (!mounted || mounted.has(above)) return undefined;
  return above;
}
