import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  describeJournalFailure,
  journalAccessProblem,
  oddSideFile,
  plantedLink,
  readOnlyFileSystemProblem,
} from '../journal/errors.js';
import { journalPlaceProblem } from '../daemon/journal-place.js';
import { recoverFix } from '../journal/recover-recipe.js';
import { foreignLinkToJournal, journalOpeners, otherNamesProblem } from '../journal/journal-file.js';
import { foreignSchemaFix, schemaProblems } from '../journal/schema-check.js';
import { schemaVersionProblem } from '../journal/schema-version.js';
import { Database } from '../journal/sqlite-driver.js';
import type { Config } from '../config/schema.js';
import { unknownCardAlerts } from '../status/unknown-cards.js';
import { errorCode, errorText, fail, pass, warn, type CheckResult } from './types.js';
import { firstFew } from '../util/first-few.js';

const NAME = 'journal';

function writableFix(dir: string): string {
  return `make ${dir} writable for the user punchgate runs as: under systemd keep journal.path in /var/lib/punchgate (StateDirectory=punchgate sets the owner); by hand: chown -R punchgate: ${dir}; in Docker: the volume must belong to the image's user`;
}

/** The errno access(2) gives for writing `path` (EROFS on a read-only mount), or undefined. */
function writeErrno(path: string): string | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (e) {
    return errorCode(e) ?? 'EACCES';
  }
}

/**
 * A journal on a read-only mount, in punchgate run's words (remount it): not a matter of owners,
 * which chown cannot fix. Found after an upgrade whose journal migration met a read-only disk.
 */
function readOnlyMount(path: string, code: string): CheckResult | undefined {
  if (![writeErrno(path), writeErrno(dirname(path))].includes('EROFS')) return undefined;
  const access = journalAccessProblem(path, code);
  return access ? fail(NAME, `${path} ${access.problem}`, access.fix) : undefined;
}

function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The deepest existing folder on the way to `dir` (where `punchgate run` would create the rest). */
function existingAncestor(dir: string): string {
  let cur = dir;
  while (!existsSync(cur) && dirname(cur) !== cur) cur = dirname(cur);
  return cur;
}

/**
 * Opens the journal read-only, never creating or migrating it (a check run as root must not
 * leave a root-owned journal behind for the service user). Full mode runs PRAGMA quick_check;
 * `quick` only proves the file opens and its queue can be read (cheap enough for a health check),
 * and says that its pages were not checked.
 */
/**
 * `terminals` and `now`: to say the punches of badge cards not in a code map (delivered ones too:
 * an HRMS that takes any code took them, and check passed).
 */
export function checkJournal(
  path: string,
  opts: { quick: boolean; terminals?: Config['terminals']; now?: number; defaultSink?: string; statusPath?: string },
): CheckResult {
  const dir = dirname(path);
  // A disk that did not come up, a journal that ran here and is gone: run refuses it (journal-place.ts).
  const place = journalPlaceProblem(path, opts.statusPath);
  if (place) return fail(NAME, `${path} ${place.problem}`, place.fix);
  // Run as root: refused by every command, so said here too, before the file is opened.
  const foreignLink = foreignLinkToJournal(path);
  if (foreignLink) return fail(NAME, `${path} ${foreignLink.problem}`, foreignLink.fix);
  if (!existsSync(path)) {
    const base = existingAncestor(dir);
    if (opts.quick)
      return fail(
        NAME,
        `${path} does not exist: punchgate run has not started, or journal.path points elsewhere`,
        'start punchgate run (it creates the journal), or correct journal.path',
      );
    if (!canWrite(base))
      return fail(NAME, `${path} does not exist yet and ${base} is not writable by this user`, writableFix(base));
    return warn(NAME, `${path} does not exist yet: punchgate run creates it at its first start (${base} is writable)`);
  }
  const st = statSync(path);
  if (!st.isFile())
    return fail(NAME, `${path} is not a file`, 'point journal.path at a file, e.g. /var/lib/punchgate/journal.db');
  const names = otherNamesProblem(path, st);
  if (names) return fail(NAME, `${path} ${names.problem}`, names.fix);
  if (st.size === 0)
    return fail(
      NAME,
      `${path} is empty (0 bytes): not a punchgate journal, and punchgate never replaces it`,
      `restore the journal from a backup; if you are sure it held nothing, remove it (rm ${path}) and punchgate run makes a new one`,
    );

  // A FIFO at the log's name would be opened by SQLite (and is refused by every other command).
  const odd = oddSideFile(path);
  if (odd) return fail(NAME, `${path} ${odd.problem}`, odd.fix);

  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 5000 });
    // Before anything is read by this punchgate's idea of the tables: a journal a newer punchgate
    // wrote (a package rolled back) is refused by punchgate run with exit 74, so check fails it too.
    const version = schemaVersionProblem(db.pragma('user_version', { simple: true }) as number);
    if (version?.kind === 'newer')
      return fail(NAME, `${path} ${version.problem}: punchgate run and every command refuse it (exit 74)`, version.fix);
    const pending = countByState(db);
    const elsewhere = journalOpeners(path).elsewhere;
    if (elsewhere.length > 0)
      return fail(
        NAME,
        `${path} is open in another process (pid ${elsewhere.join(', ')}) by another name (a bind mount of the file, or a link): two write-ahead logs for one file`,
        `stop that process (ps -p ${elsewhere[0]} -o pid,args), and give every punchgate command the same journal.path`,
      );
    const foreign = schemaProblems(db);
    if (foreign.length > 0)
      return fail(
        NAME,
        `${path} holds a schema that is not punchgate's: ${firstFew(foreign, 4, undefined, '; ')} (another program's objects can change or drop punches)`,
        foreignSchemaFix(path),
      );
    let integrity = '';
    if (!opts.quick) {
      const rows = db.pragma('quick_check') as Array<{ quick_check: string }>;
      const problems = rows.map((r) => r.quick_check).filter((m) => m !== 'ok');
      if (problems.length > 0) {
        return fail(
          NAME,
          `${path} is damaged: quick_check found ${problems.length} problem${problems.length === 1 ? '' : 's'} (${problems.slice(0, 2).join('; ')})`,
          recoverFix(path),
        );
      }
      integrity = 'quick_check ok, ';
    } else {
      // quick_check reads every page (0.5-0.8 s and 200 MB for a year of punches, seconds from a
      // cold card): too much for a health check run every 30 s. A PASS said nothing of the pages,
      // and a journal with zeroed pages passed: the line now says what was not looked at.
      integrity = `pages not checked (--quick; punchgate check without --quick checks them), `;
    }
    if (!canWrite(path) || !canWrite(dir)) {
      const readOnly = readOnlyMount(path, 'EROFS');
      if (readOnly) return readOnly;
      return fail(
        NAME,
        `${path} opens but ${canWrite(path) ? dir : path} is not writable by this user`,
        writableFix(dir),
      );
    }
    // A file system that refuses only a write tried (ext4's emergency_ro after a disk error) passes
    // access(2): check said PASS while every start of punchgate run stopped on it (a new-user trial).
    const refusing = readOnlyFileSystemProblem(path, 'EROFS');
    if (refusing) return fail(NAME, `${path} ${refusing.problem}`, refusing.fix);
    // An older journal is what an upgrade leaves until the daemon restarts: run upgrades it, the
    // other commands refuse it meanwhile.
    if (version?.kind === 'older')
      return warn(
        NAME,
        `${path}: ${integrity}${pending.text}; it ${version.problem}: punchgate run upgrades it at its next start, and until then the other commands refuse it`,
        'restart the service once (sudo systemctl restart punchgate), then run punchgate check again',
      );
    // Punches the HRMS refused wait for a person: a PASS would say all is well (a new-user trial
    // saw "all checks passed" with 25 punches refused for codes the HRMS did not know).
    const cards = opts.now === undefined ? [] : unknownCardAlerts(db, opts.terminals ?? [], opts.now, opts.defaultSink);
    const refused =
      pending.refused > 0 || pending.dead > 0
        ? [
            {
              cause: refusedWords(pending.refused, pending.dead),
              fix: 'see why: punchgate punches list --state rejected (or dead); correct it in the HRMS (the employee, the code), then: punchgate punches retry (--state dead for those given up)',
            },
          ]
        : [];
    const problems = [...refused, ...cards];
    if (problems.length > 0)
      return warn(
        NAME,
        `${path}: ${integrity}${pending.text}: ${problems.map((p) => p.cause).join('; ')}`,
        problems.map((p) => p.fix).join('; '),
      );
    return pass(NAME, `${path}: ${integrity}${pending.text}`);
  } catch (e) {
    const code = errorCode(e) ?? '';
    // Said as run says it: a damaged page is SQLITE_CORRUPT ("is damaged"), never "not a readable
    // SQLite database ... point journal.path at the punchgate journal" (found by a damaged-journal trial).
    if (/^SQLITE_(NOTADB|CORRUPT)/.test(code)) {
      const failure = describeJournalFailure(path, e);
      return fail(NAME, `${path} ${failure.problem}`, failure.fix);
    }
    if (/no such table/i.test(errorText(e))) {
      return fail(
        NAME,
        `${path} is a SQLite file but not a punchgate journal (no punches table)`,
        'point journal.path at the punchgate journal, or at a new file that punchgate run will create',
      );
    }
    if (code === 'SQLITE_CANTOPEN' || code === 'EACCES' || /SQLITE_(PERM|READONLY)/.test(code)) {
      const planted = plantedLink(path, code);
      if (planted) return fail(NAME, `${path} ${planted.problem}`, planted.fix);
      const readOnly = readOnlyMount(path, code);
      if (readOnly) return readOnly;
      const refusing = readOnlyFileSystemProblem(path, code);
      if (refusing) return fail(NAME, `${path} ${refusing.problem}`, refusing.fix);
      return fail(NAME, `${path} cannot be opened by this user (${code})`, writableFix(dir));
    }
    if (code === 'SQLITE_BUSY')
      return warn(NAME, `${path} stayed locked for 5 s (another process is writing); try again`);
    return fail(NAME, `${path} cannot be read: ${errorText(e)}`, `check the file and its folder ${dir}`);
  } finally {
    db?.close();
  }
}

function refusedWords(refused: number, dead: number): string {
  const words = [
    ...(refused > 0 ? [`${refused} punch${refused === 1 ? '' : 'es'} refused by the HRMS wait for a fix`] : []),
    ...(dead > 0 ? [`${dead} punch${dead === 1 ? '' : 'es'} given up after every attempt`] : []),
  ];
  return words.join('; ');
}

/** The queue of the default sink in words, and its punches refused (rejected) and given up (dead). */
function countByState(db: Database): { text: string; refused: number; dead: number } {
  // The counts kept with every write (punch-counts.ts); a journal not yet brought up to date counts its table.
  const kept = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'punch_counts'`).get();
  const rows = db
    .prepare(
      kept
        ? `SELECT state, sum(n) AS n FROM punch_counts WHERE state <> 'delivered' GROUP BY state`
        : `SELECT state, count(*) AS n FROM punches WHERE state <> 'delivered' GROUP BY state`,
    )
    .all() as Array<{ state: string; n: number }>;
  const by = new Map(rows.map((r) => [r.state, r.n]));
  const parts = ['pending', 'inflight', 'rejected', 'dead', 'quarantined']
    .filter((s) => (by.get(s) ?? 0) > 0)
    .map((s) => `${by.get(s)} ${s}`);
  return {
    text: parts.length ? `queue ${parts.join(', ')}` : 'queue empty',
    refused: by.get('rejected') ?? 0,
    dead: by.get('dead') ?? 0,
  };
}
