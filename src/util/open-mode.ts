import { statSync } from 'node:fs';

/**
 * The mode of a file that every user of the box may read (mode & 0o004), as `0644`; undefined
 * when it is private or not there (a missing file is said by whatever reads it). For files that
 * hold a secret: the docs ask for 0640 root:punchgate (group read is meant: the service user
 * reads it through its group).
 */
export function modeReadableByAll(file: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(file).mode & 0o7777;
  } catch {
    return undefined;
  }
  return (mode & 0o004) === 0 ? undefined : mode.toString(8).padStart(4, '0');
}
