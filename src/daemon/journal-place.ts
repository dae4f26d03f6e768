import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { JournalUnusableError } from '../journal/errors.js';
import { lostJournalProblem } from '../journal/lost-journal.js';
import { readStatusJson, statusJsonPath } from '../status/daemon-probe.js';
import { linkedPath, systemMountTables, unmountedMountPointOf, type MountTables } from '../util/mount-table.js';

/** What makes punchgate wait for the journal's disk under systemd: said by both refusals. */
const waitForDisk = (folder: string) =>
  `under systemd make punchgate wait for it: sudo systemctl edit punchgate, and add [Unit] RequiresMountsFor=${folder}`;

/**
 * Before `punchgate run` opens (and, where none is, makes) its journal: is this the journal's
 * place at all? A journal on a disk of its own (a USB disk, a second card) whose mount did not
 * come up at boot left the daemon to make a new folder and an empty journal on the file system
 * below, without a word: the punches the old journal still owed seemed lost, and once the disk
 * came up, the old journal reappeared over the new one, with what was journalled meanwhile
 * hidden under it. Two signs are asked, both files an admin can see and move:
 *
 * - /etc/fstab or a systemd mount unit mounts a file system above the journal, or above where a
 *   link in its path leads, and nothing is mounted there now (also when a journal file is there:
 *   it is one made on the file system below, hidden by the disk);
 * - no journal file, and the status log's JSON twin (status.json, beside the status log, which
 *   may be elsewhere than the journal) says punchgate run kept this very journal: it ran here.
 *
 * A journal's own write-ahead log or backup record left beside it is said first (lost-journal.ts).
 * A first start has none of these, and makes the journal (and its folder) as before. Refused with 74,
 * the path and the ways on: mount the disk, restore, or start empty on purpose by moving the
 * status log's record away. Nothing is made or changed.
 */
export function journalPlaceProblem(
  journalPath: string,
  statusPath: string | undefined,
  tables: MountTables = systemMountTables(),
): JournalUnusableError | undefined {
  const folder = dirname(resolve(journalPath));
  const unmounted = unmountedMountPointOf(resolve(journalPath), tables);
  if (unmounted) {
    const { point, by } = unmounted;
    const real = linkedPath(journalPath);
    const through = real === resolve(journalPath) ? '' : ` (through a link: it is ${real})`;
    const mounter = by.endsWith('.mount') ? `the systemd unit ${by}` : by;
    const mountIt = by.endsWith('.mount') ? `sudo systemctl start ${basename(by)}` : `sudo mount ${point}`;
    return new JournalUnusableError(
      journalPath,
      `${through ? `${through.slice(1)} ` : ''}lies under ${point}, which ${mounter} mounts, but nothing is mounted there now: its disk did not come up, and a journal used or made now would be on the file system below, hidden once the disk is mounted`,
      `mount it (${mountIt}; dmesg and journalctl -b say why it did not come up), then start punchgate; ${waitForDisk(point)}`,
      'ENOTMOUNTED',
    );
  }
  if (existsSync(journalPath)) return undefined;
  // Its write-ahead log or a backup record beside it: said in their more precise words.
  const lost = lostJournalProblem(journalPath);
  if (lost) return lost;
  const ran = statusPath === undefined ? undefined : ranHere(journalPath, statusPath);
  if (!ran) return undefined;
  const then = `${ran.at}${ran.pending === undefined ? '' : `, ${ran.pending.toLocaleString('en-US')} punch${ran.pending === 1 ? '' : 'es'} waiting then`}`;
  const where = existsSync(folder)
    ? `does not exist, while the status log ${ran.file} (written ${then}) says punchgate run kept it: the journal was lost or removed (a failing card, an rm), or it is on a disk that did not come up`
    : `does not exist, and its folder ${folder} is gone, while the status log ${ran.file} (written ${then}) says punchgate run kept it there: its disk or mount did not come up, or the folder was removed`;
  return new JournalUnusableError(
    journalPath,
    `${where}, with the punches it still owed; no new, empty journal was made`,
    `if its disk did not come up, mount it and start punchgate (${waitForDisk(folder)}); if the journal was lost, restore the newest backup (punchgate restore FILE; see backup.md), then import the terminals' logs since it; to start with a new, empty journal on purpose, remove ${ran.file} and start punchgate`,
    'ENOENT',
  );
}

/** The status log's record that punchgate run kept this journal, or undefined (none, another journal's, unreadable). */
function ranHere(journalPath: string, statusPath: string): { file: string; at: string; pending?: number } | undefined {
  let report;
  try {
    report = readStatusJson(statusPath);
  } catch {
    return undefined;
  }
  const kept = report.journal?.path;
  if (typeof kept !== 'string' || resolve(kept) !== resolve(journalPath)) return undefined;
  const pending = report.punches?.pending;
  return {
    file: statusJsonPath(statusPath),
    at: typeof report.generatedAt === 'string' ? report.generatedAt : 'at a time it does not say',
    pending: typeof pending === 'number' ? pending : undefined,
  };
}
