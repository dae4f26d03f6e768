import type { SourceStateStore } from '../../journal/types.js';
import type { Logger } from '../../util/logger.js';
import * as shared from '../device-notes.js';
import type { NoteShelf, NoteWords, StoredNote } from '../device-notes.js';

/**
 * What a ZK terminal did wrong lately that no poll result says, kept in the journal so that the
 * status raises an alert naming it (src/status/dahua.ts): a real-time connection that keeps
 * dropping soon after it opens (cleared once a real-time connection stays up); a clock set by
 * syncClock across a time zone's difference (src/sources/clock-zone-note.ts); a full log (cleared
 * by the first poll that finds room); a download holding a record twice (cleared by the first
 * download without); a disable for a clear left unanswered (cleared by a clear that works). The
 * reading and writing is src/sources/device-notes.ts.
 */
export type ZkNoteTopic = 'realtime' | 'clock' | 'full' | 'doubled' | 'clear';

export type ZkNote = StoredNote<ZkNoteTopic>;

// Rewritten at most once a minute while the same words hold: a link dropping every few seconds
// does not cost the journal a write each time.
const SHELF: NoteShelf<ZkNoteTopic> = {
  key: 'zk-notes',
  topics: ['realtime', 'clock', 'full', 'doubled', 'clear'],
  keepSameForMs: 60_000,
};

/** The notes to show now. */
export function activeZkNotes(state: Pick<SourceStateStore, 'get'>, terminal: string, now: number): ZkNote[] {
  return shared.activeNotes(SHELF, state, terminal, now);
}

/** Writes (or, with null, clears) one topic's note. Never throws (a busy journal is logged). */
export function writeZkNote(
  state: SourceStateStore,
  terminal: string,
  topic: ZkNoteTopic,
  words: NoteWords | null,
  now: number,
  log: Logger,
): void {
  shared.writeNote(SHELF, state, terminal, topic, words, now, log);
}
