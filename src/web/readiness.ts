import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { cannotStart } from '../delivery/cannot-start.js';
import type { Journal } from '../journal/journal.js';
import { errorCode } from '../util/errors.js';
import type { ListenerFact } from '../util/listener-fact.js';
import { localTime } from '../util/local-time.js';
import { alertLine } from '../status/alert-words.js';
import { defaultCredentialAlert } from '../status/credential-alert.js';
import type { SinkCredential } from '../status/types.js';

/** Below this much free space the journal cannot be trusted to take the next punches. */
const MIN_FREE_BYTES = 4 * 1024 * 1024;

/**
 * Why the daemon is not ready to do its job, in plain words (none: ready). Ready means a punch
 * can be journalled now (the journal takes a write lock at once, and its disk has room) and
 * the default sink has a usable credential it does not refuse. A terminal or the HRMS being away does not make it
 * unready: punches then wait in the journal, which is the design. A delivery that cannot start (its
 * caFile missing...) is like no credential: nothing is sent until a person acts.
 */
export function notReadyReasons(journal: Journal, journalPath: string, credential?: SinkCredential): string[] {
  const reasons: string[] = [];
  const lock = writeLockProblem(journal);
  if (lock) reasons.push(`journal ${journalPath} ${lock}`);
  try {
    const fs = statfsSync(dirname(journalPath));
    const free = fs.bavail * fs.bsize;
    if (free < MIN_FREE_BYTES) {
      reasons.push(`journal disk nearly full: ${Math.floor(free / 1024)} KB free on ${dirname(journalPath)}`);
    }
  } catch (e) {
    reasons.push(`journal folder ${dirname(journalPath)} cannot be examined (${errorCode(e) ?? String(e)})`);
  }
  const d = journal.deliveryState.get();
  // The status's own words: no usable token (nothing was sent) is not the HRMS refusing it.
  const credentialAlert = defaultCredentialAlert(d, d.authFailedSince, credential);
  if (credentialAlert) {
    reasons.push(alertLine(credentialAlert));
  } else if (cannotStart(d)) {
    reasons.push(`${d.lastError ?? 'delivery cannot start'} (since ${localTime(d.failingSince!)})`);
  }
  return reasons;
}

/**
 * Takes the journal's write lock and lets it go at once (BEGIN IMMEDIATE; ROLLBACK), without
 * waiting: another process holding it, a read-only file or a closed journal is a problem.
 */
function writeLockProblem(journal: Journal): string | undefined {
  const db = journal.db;
  if (!db.open) return 'is closed (punchgate is stopping)';
  if (db.inTransaction) return undefined;
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    return undefined;
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    const code = errorCode(e) ?? 'error';
    return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')
      ? 'is busy: another process holds its write lock'
      : `cannot be written (${code})`;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

/**
 * The push terminal receiver not listening is not ready: unlike a terminal being away, it is
 * punchgate that cannot take the punches of every push terminal now (they wait on the terminals).
 */
export function listenerNotReady(f: ListenerFact | undefined): string[] {
  if (!f || f.up || f.downSince === null) return [];
  return [
    `the push terminal receiver cannot listen on ${f.listen} (${f.code ?? 'error'}) since ${localTime(f.downSince)}: push terminals cannot send their punches; punchgate keeps trying`,
  ];
}
