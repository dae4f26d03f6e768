import { isFatalJournalError } from '../../journal/errors.js';
import type { IngestResult, PunchUpload, PushJournal } from '../../journal/types.js';

/** Uploads in one transaction at most, and their punches: a commit stays short. */
const MAX_UPLOADS = 64;
/**
 * Punches in one transaction at most (a group always takes its first upload, however large).
 * A commit costs about 10 to 20 microseconds a punch on a 2-core box plus a disk sync, all of it
 * on the event loop: 40 terminals each pushing 100 punches at once made one turn of 40 to 80 ms
 * (busy-box bench), during which no other terminal, scrape or delivery was served. 500 punches
 * keep a turn near 10 ms there; the rest goes in the next turn, after the loop served what waited.
 */
export const MAX_GROUP_PUNCHES = 500;

interface Job {
  upload: PunchUpload;
  resolve: (r: IngestResult) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: uploads whose bodies complete while a commit is under way (or in the same turn
 * of the event loop) are journalled together in the next transaction, so 20 terminals pushing
 * at once cost one disk sync, not 20 in a row. Each upload is answered only when the
 * transaction holding it is durable. A failure of the whole group (journal busy, disk full)
 * fails every upload in it; any other failure is retried upload by upload, so one bad upload
 * cannot keep the others out.
 */
export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;

  constructor(private readonly journal: Pick<PushJournal, 'commitPunches'>) {}

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
    try {
      const results = this.journal.commitPunches(group.map((j) => j.upload));
      group.forEach((j, i) => j.resolve(results[i]!));
    } catch (e) {
      if (group.length === 1 || whole(e)) {
        for (const j of group) j.reject(e);
        return;
      }
      for (const j of group) {
        try {
          j.resolve(this.journal.commitPunches([j.upload])[0]!);
        } catch (each) {
          j.reject(each);
        }
      }
    }
  }
}

/** Errors of the journal as a whole (busy, locked, full, unwritable): retrying one by one cannot help. */
function whole(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return isFatalJournalError(e) || (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code));
}
