import type { IngestOptions, IngestResult, PunchSink } from '../journal/types.js';
import type { Punch } from '../punch.js';

/**
 * Journals punches a terminal (or a server) still holds and a poll reads again, with their disk
 * sync made beside the event loop and waited for by no one: a real-time event of a terminal that
 * keeps it in its log, a page read with the cursor that follows it (in the same commit).
 *
 * Nothing is told to a device on the strength of it, so nothing waits for the disk: on an SD card
 * a sync takes 5 to 50 ms, and a site has 200 terminals (issue 35). A power cut before the sync
 * loses the last commits whole and in order (the write-ahead log keeps a prefix): the punches with
 * their cursor, which the next poll reads again from where the journal says. A terminal's log is
 * cleared only after a poll's own sync, which covers every commit before it (zk/poll.ts).
 *
 * Never for punches answered for (push uploads wait for `synced`) nor for those read once (a
 * serial line's): those keep a commit that syncs before it returns.
 */
export function journalReadAgain(sink: PunchSink, punches: readonly Punch[], opts?: IngestOptions): IngestResult {
  return sink.ingestSyncedLater ? sink.ingestSyncedLater(punches, opts).result : sink.ingest(punches, opts);
}
