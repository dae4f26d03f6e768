import type { IngestOptions, IngestResult, PunchSink } from '../journal/types.js';
import type { Punch } from '../punch.js';

/**
 * Journals punches with their disk sync made beside the event loop where the sink can (on an SD
 * card a sync takes 5 to 50 ms, and a site has 200 terminals: issue 35): committed at once,
 * `synced` resolves once they are on the disk and rejects if that sync fails. A source that then
 * tells its terminal anything (answers OK, clears its log) waits for `synced` first. A sink that
 * cannot sync apart syncs before it returns (`synced` already resolved).
 */
export function journalSyncedApart(
  sink: PunchSink,
  punches: readonly Punch[],
  opts?: IngestOptions,
): { result: IngestResult; synced: Promise<void> } {
  return sink.ingestSyncedLater?.(punches, opts) ?? { result: sink.ingest(punches, opts), synced: Promise.resolve() };
}

/**
 * Journals punches a terminal (or a server) still holds and a poll reads again, their disk sync
 * beside the event loop and waited for by no one: a real-time event of a terminal that keeps it in
 * its log, a page read with the cursor that follows it (in the same commit).
 *
 * Nothing is told to a device on the strength of it, so nothing waits for the disk. A power cut
 * before the sync loses the last commits whole and in order (the write-ahead log keeps a prefix):
 * the punches with their cursor, which the next poll reads again from where the journal says. A
 * terminal's log is cleared only after a poll's own sync, which covers every commit before it
 * (zk/poll.ts).
 *
 * Never for punches a device is answered for (they wait for journalSyncedApart's `synced`) nor for
 * those read once (a serial line's): those keep a commit that syncs before it returns.
 */
export function journalReadAgain(sink: PunchSink, punches: readonly Punch[], opts?: IngestOptions): IngestResult {
  return journalSyncedApart(sink, punches, opts).result;
}
