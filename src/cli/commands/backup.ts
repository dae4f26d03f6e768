import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { backupJournal, BackupTargetError, type JournalSummary } from '../../journal/backup.js';
import { folderProblem, refuseJournalFiles } from '../../journal/backup-target.js';
import { refuseOverwrite } from '../../journal/backup-overwrite.js';
import { lastBackupFile, recordBackup } from '../../journal/last-backup.js';
import { makeBackupFolder, newBackupPath, ownBackupsFilling, pruneBackups } from '../../journal/backup-folder.js';
import { SCHEMA_VERSION } from '../../journal/migrations.js';
import { restoreJournal } from '../../journal/restore.js';
import { verifyBackup } from '../../journal/verify-backup.js';
import type { SealCheck } from '../../journal/backup-seal.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { foreignLinkOnPath } from '../../util/private-file.js';
import { action, loadContext } from '../common.js';
import { int } from '../option-values.js';
import { firstFew } from '../../util/first-few.js';

const count = (n: number) => n.toLocaleString('en-US');
const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/**
 * `12,345 punches (3 not delivered yet), newest 2026-11-22 08:00:00`. With more than one sink, what
 * any of them still owes ("not delivered to every sink yet"): the default sink's count alone said
 * 60 while another sink was owed 63.
 */
function contents(s: JournalSummary): string {
  const open = s.waiting + s.dead;
  const where = s.otherSinks > 0 ? ' to every sink' : '';
  const parts = [
    `${count(s.punches)} ${s.punches === 1 ? 'punch' : 'punches'}`,
    open > 0
      ? ` (${count(open)} not delivered${where} yet${s.dead > 0 ? `, ${count(s.dead)} of them refused for good` : ''})`
      : '',
    s.newest ? `, newest ${s.newest}` : '',
  ];
  return parts.join('');
}

/**
 * Whether the target names a folder: one that exists, one written with a trailing `/`, one that
 * does not exist yet and whose name has no extension (`/var/lib/punchgate/backups`: without it, a
 * first backup there, as docs/install.md shows it, wrote a FILE named backups, and every nightly
 * `--keep` run after it failed), or, with --keep (which only a folder takes), any path not named
 * as a `.db` file.
 */
function isFolderTarget(path: string, keep: boolean): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return path.endsWith('/') || !/.\.[^.]+$/.test(basename(path)) || (keep && !/\.db$/i.test(path));
  }
}

/** What restore says of a backup it could not verify (backup-seal.ts), or undefined when it could. */
export function sealWarning(file: string, seal: SealCheck): string | undefined {
  if (seal.state === 'none')
    return `warning: ${file} carries no digest of its content (made by a punchgate before backups were sealed, or a copy of a stopped journal): SQLite's check passed, but a byte changed inside a punch cannot be found; compare its punches with the terminals' logs or the HRMS if in doubt`;
  if (seal.state === 'changed')
    return `warning: ${file} was restored with --force although ${seal.why}: some punches may differ from what was journalled; compare them with the terminals' logs or the HRMS`;
  return undefined;
}

export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description(
      'copy the journal into one file, consistent while punchgate runs (no token, no config); into a folder: a dated file, --keep N',
    )
    .argument('<file-or-folder>', 'the backup file, or a folder for punchgate-<site>-<time>.db')
    .option(
      '--keep <n>',
      'with a folder (made if missing): keep the newest N backups of this site there (by the punches they hold), remove older ones punchgate made',
      int(1),
    )
    .option('--force', 'write over an existing file that is not a punchgate backup of this site')
    .action(
      action(async (target: string, opts: { keep?: number; force?: boolean }, cmd: Command) => {
        const { config } = loadContext(cmd, { logToStderr: true });
        // Root writes (and with --keep removes) files there: never where another user's link points.
        const link = foreignLinkOnPath(target);
        if (link)
          throw new ExitError(
            `${target}: ${link.link} is a symbolic link (to ${link.target}) owned by uid ${link.owner}, not root: ` +
              "root does not write backups through another user's link; name the real folder if it is meant, or remove the link",
            EXIT.IOERR,
          );
        const folder = isFolderTarget(target, opts.keep !== undefined);
        if (opts.keep !== undefined && !folder)
          throw new ExitError(
            `--keep: ${target} is not a folder (--keep prunes the dated backups in a folder): move that file away (it may be a backup: punchgate restore takes it) or name another folder`,
            EXIT.CONFIG,
          );
        if (folder) {
          try {
            if (makeBackupFolder(target, config.journal.path))
              process.stdout.write(`made the folder ${target} (mode 0700) for the backups\n`);
          } catch (e) {
            const code = (e as { code?: string }).code ?? '';
            // mkdir's bare errno misled: ENOENT on a read-only disk, ENOTDIR for a file on the way.
            const said = code ? folderProblem(target, code, true) : '';
            throw new ExitError(
              `cannot make the backup folder ${target}: ${said || `${code || String(e)}; make it writable for this user, or pick another folder`}`,
              EXIT.IOERR,
            );
          }
        }
        const file = folder ? newBackupPath(target, config.site, new Date()) : target;
        let done;
        try {
          if (!folder) {
            // The journal's own files first: --force never writes over them.
            refuseJournalFiles(config.journal.path, file);
            refuseOverwrite(file, config.site, opts.force ?? false, config.journal.path);
          }
          done = await backupJournal(config.journal.path, file);
        } catch (e) {
          if (e instanceof BackupTargetError)
            throw new ExitError(
              `${e.message}${e.diskFull && folder ? ownBackupsFilling(target, config.site) : ''}`,
              EXIT.IOERR,
            );
          throw e;
        }
        process.stdout.write(
          `backup of ${config.journal.path} written to ${file}: ${contents(done)}; ${megabytes(done.bytes)} in ${(done.ms / 1000).toFixed(1)} s\n`,
        );
        // For punchgate status and check ("last backup: ..."). The backup itself is whole: a record
        // that cannot be written is said, and the backup still counts (exit 0).
        try {
          await recordBackup(config.journal.path, {
            at: new Date().toISOString(),
            path: resolve(file),
            punches: done.punches,
            newest: done.newest,
            bytes: done.bytes,
          });
        } catch (e) {
          process.stderr.write(
            `the backup is whole, but it could not be recorded in ${lastBackupFile(config.journal.path)} (${(e as { code?: string }).code ?? String(e)}), so punchgate status does not show it: make that folder writable for this user\n`,
          );
        }
        if (folder && opts.keep !== undefined) {
          const p = pruneBackups(target, config.site, opts.keep, file);
          if (p.removed.length > 0)
            process.stdout.write(
              `removed ${p.removed.length} older ${p.removed.length === 1 ? 'backup' : 'backups'} of ${config.site} (--keep ${opts.keep}; the oldest by the punches they hold)\n`,
            );
          if (p.notBackups.length > 0)
            process.stdout.write(
              `left alone ${p.notBackups.length} ${p.notBackups.length === 1 ? 'file' : 'files'} named like a backup that punchgate did not make: ${firstFew(p.notBackups, 3)}\n`,
            );
        }
      }),
    );

  program
    .command('restore')
    .description(
      "put a backup in the journal's place, punchgate stopped; checked first, the replaced journal is kept beside it",
    )
    .argument('<file>', 'a file made by punchgate backup (or a copy of a stopped journal)')
    .option(
      '--force',
      'replace a journal that holds punches not delivered yet, restore a backup of another site, or one whose content no longer matches its seal',
    )
    .option('--check', 'only check the backup (damage, schema, its seal), change nothing; punchgate may run')
    .action(
      action(async (file: string, opts: { force?: boolean; check?: boolean }, cmd: Command) => {
        const { config } = loadContext(cmd, { logToStderr: true });
        const path = config.journal.path;
        if (opts.check) {
          const v = verifyBackup(file, path);
          process.stdout.write(
            `${file} can be restored: ${contents(v.summary)}${v.seal.state === 'ok' ? '; its content matches the digest written into it when it was made' : ''}\n`,
          );
          const unsure = sealWarning(file, v.seal);
          if (unsure) process.stderr.write(`${unsure}\n`);
          return;
        }
        const r = await restoreJournal({
          journalPath: path,
          backupPath: file,
          site: config.site,
          force: opts.force ?? false,
          now: new Date(),
        });
        const claims =
          r.returnedClaims > 0
            ? `; ${count(r.returnedClaims)} claimed for delivery by the old box's punchgate are back in the queue (the HRMS takes a resend as such)`
            : '';
        const lines = [`restored ${file} into ${path}: ${contents(r.restored)}${claims}`];
        if (r.restored.schema < SCHEMA_VERSION)
          lines.push(
            `it was written by an older punchgate (schema ${r.restored.schema}): punchgate run upgrades it at its start`,
          );
        if (r.replaced)
          lines.push(
            `the journal it replaced is kept as ${r.replaced.keptAs}${r.replaced.summary ? `, with ${contents(r.replaced.summary)}` : ''}: remove it once punchgate runs well`,
          );
        if (r.lostLogKeptAs)
          lines.push(
            `the write-ahead log of the journal that was gone is kept as ${r.lostLogKeptAs}: it holds that journal's last writes, so punches since the backup may be only there: import the terminals' logs since the backup (punchgate import)`,
          );
        // No journal was there: a new box (backup.md, replacing a box), whose service and nightly
        // backup were never switched on; a box without the timer would go without backups unsaid.
        lines.push(
          r.replaced
            ? 'next: start punchgate (sudo systemctl start punchgate), then punchgate status'
            : 'next: start punchgate and its nightly backup (sudo systemctl enable --now punchgate punchgate-backup.timer), then punchgate status',
        );
        process.stdout.write(`${lines.join('\n')}\n`);
        const unsure = sealWarning(file, r.seal);
        if (unsure) process.stderr.write(`${unsure}\n`);
      }),
    );
}
