import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The files a new journal is made in before it is linked into place (`journal.db.new-<pid>` and
 * SQLite's `-journal`, `-wal`, `-shm` beside it), left by a process killed while it made one
 * (a SIGTERM or a power cut in the first seconds of a first start). Each start removed only the
 * file named after its own process id, so a killed one's stayed for ever. They hold an empty
 * journal's schema, never a punch: removed at the next open once the process that made them is
 * gone. A running one's (another `punchgate run` making the journal at the same moment) stay.
 *
 * Likewise the empty probe file a disk sync's check makes and removes at once
 * (`.journal.db.sync-probe-<pid>`, file-system-probe.ts), left by a process killed between the
 * two: a later probe of the same process id removed it, any other stayed.
 */
export function removeLeftoverNewFiles(path: string, isRunning: (pid: number) => boolean = processRuns): string[] {
  const folder = dirname(path);
  const name = basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const made = new RegExp(`^(?:${name}\\.new-(\\d+)(?:-journal|-wal|-shm)?|\\.${name}\\.sync-probe-(\\d+))$`);
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return []; // a folder this user cannot list: the open that follows says why, if it matters
  }
  const removed: string[] = [];
  for (const f of entries) {
    const match = made.exec(f);
    const pid = Number(match?.[1] ?? match?.[2] ?? NaN);
    if (!Number.isSafeInteger(pid) || pid === process.pid || isRunning(pid)) continue;
    try {
      rmSync(join(folder, f), { force: true });
      removed.push(f);
    } catch {
      // left for the next start: never a reason to refuse this one
    }
  }
  return removed;
}

/** Whether a process with this id runs (EPERM: it does, as another user). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
}
