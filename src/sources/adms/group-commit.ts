import { isFatalJournalError } from '../../journal/errors.js';
import type { IngestResult, PunchUpload, PushJournal } from '../../journal/types.js';

/** Uploads in one transaction at most, and their punches: a commit stays short. */
const MAX_UPLOADS = 64;
/**
 * Punches in one transaction at most (a group always takes its first upload, however large).
 * A commit costs about 10 to 20 microseconds a punch on a 2-core box, on the event loop (its disk
 * sync is not, where the journal offers that): 40 terminals each pushing 100 punches at once made one turn of 40 to 80 ms
 * (busy-box bench), during which no other terminal, scrape or delivery was served. 500 punches
 * keep a turn near 10 ms there; the rest goes in the next turn, after the loop served what waited.
 */
export const MAX_GROUP_PUNCHES = 500;

/**
 * After the journal was found busy (another process holds its write lock: an import, a backup, an
 * sqlite3 shell), groups within this long are refused at once, without asking SQLite: each ask
 * waits for the lock for the daemon's busy timeout (200 ms) on the event loop, and terminals that
 * retry every few seconds would hold the loop that long, group after group (a trial saw pings take
 * 1.2 s). One group a window asks again; each refused upload is answered "try later" (503), which
 * is what it would have got after the wait.
 */
export const BUSY_WINDOW_MS = 500;

interface Job {
  upload: PunchUpload;
  resolve: (r: IngestResult) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: uploads whose bodies complete while a commit is under way (or in the same turn
 * of the event loop) are journalled together in the next transaction, so 20 terminals pushing
 * at once cost one disk sync, not 20 in a row. Each upload is answered only when the
 * transaction holding it is durable: where the journal syncs apart (commitPunchesSyncedLater),
 * once the disk sync that follows the commit has ended, in the thread pool, while the event loop
 * serves the next uploads (whose commits share the next sync); a failed sync fails the uploads it
 * was to cover. A failure of the whole group (journal busy, disk full) fails every upload in it;
 * any other failure is retried upload by upload, so one bad upload cannot keep the others out.
 */
export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;
  /** When the journal was last found busy (elapsed ms), and that error. */
  private busy: { at: number; error: unknown } | undefined;

  constructor(
    private readonly journal: Pick<PushJournal, 'commitPunches' | 'commitPunchesSyncedLater'>,
    /** Monotonic milliseconds: the busy window is real time, whatever a test does to the wall clock. */
    private readonly elapsed: () => number = () => performance.now(),
  ) {}

  submit(upload: PunchUpload): Promise<IngestResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ upload, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const group: Job[] = [];
    let punches = 0;
    while (this.queue.length > 0 && group.length < MAX_UPLOADS) {
      const next = this.queue[0]!;
      if (group.length > 0 && punches + next.upload.punches.length > MAX_GROUP_PUNCHES) break;
      punches += next.upload.punches.length;
      group.push(this.queue.shift()!);
    }
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (this.busy && this.elapsed() - this.busy.at < BUSY_WINDOW_MS) {
      for (const j of group) j.reject(this.busy.error);
      return;
    }
    this.busy = undefined;
    try {
      answerWhenSynced(group, this.commit(group.map((j) => j.upload)));
    } catch (e) {
      if (isBusy(e)) this.busy = { at: this.elapsed(), error: e };
      if (group.length === 1 || whole(e)) {
        for (const j of group) j.reject(e);
        return;
      }
      for (const j of group) {
        try {
          answerWhenSynced([j], this.commit([j.upload]));
        } catch (each) {
          j.reject(each);
        }
      }
    }
  }

  /** One transaction; `synced` when its disk sync comes after (undefined: it synced itself). */
  private commit(uploads: readonly PunchUpload[]): { value: IngestResult[]; synced?: Promise<void> } {
    const j = this.journal;
    return j.commitPunchesSyncedLater ? j.commitPunchesSyncedLater(uploads) : { value: j.commitPunches(uploads) };
  }
}

/** Answers each upload with its result once its transaction is on the disk; none if the sync failed. */
function answerWhenSynced(jobs: readonly Job[], c: { value: IngestResult[]; synced?: Promise<void> }): void {
  const answer = () => jobs.forEach((j, i) => j.resolve(c.value[i]!));
  if (!c.synced) answer();
  else
    c.synced.then(answer, (e: unknown) => {
      for (const j of jobs) j.reject(e);
    });
}

/** Errors of the journal as a whole (busy, locked, full, unwritable): retrying one by one cannot help. */
function whole(e: unknown): boolean {
  return isFatalJournalError(e) || isBusy(e);
}

function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code);
}
