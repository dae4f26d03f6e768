import type { SourceStateStore } from '../../journal/types.js';
import type { Logger } from '../../util/logger.js';
import * as shared from '../device-notes.js';
import type { NoteShelf, NoteWords, StoredNote } from '../device-notes.js';

/**
 * What a Dahua terminal did wrong lately, kept in the journal beside its cursor, so that the
 * status raises an alert naming it (src/status/dahua.ts): a poll that stopped at a bound (an
 * answer too large or endless, more records in one second than a page holds), records dated
 * implausibly, a log renumbered or cleared (read again from its start), an event stream that broke
 * a bound. One note per topic; shown for a day after it was last written. The reading and
 * writing is src/sources/device-notes.ts.
 */
export type DahuaNoteTopic = 'poll' | 'records' | 'cursor' | 'stream';

export type DahuaNote = StoredNote<DahuaNoteTopic>;
export { NOTE_SHOWN_MS } from '../device-notes.js';

const SHELF: NoteShelf<DahuaNoteTopic> = { key: 'dahua-notes', topics: ['poll', 'records', 'cursor', 'stream'] };

export function readDahuaNotes(state: Pick<SourceStateStore, 'get'>, terminal: string): DahuaNote[] {
  return shared.readNotes(SHELF, state, terminal);
}

/** The notes to show now. */
export function activeDahuaNotes(state: Pick<SourceStateStore, 'get'>, terminal: string, now: number): DahuaNote[] {
  return shared.activeNotes(SHELF, state, terminal, now);
}

/** Writes (or, with null, clears) one topic's note. Never throws (a busy journal is logged). */
export function writeDahuaNote(
  state: SourceStateStore,
  terminal: string,
  topic: DahuaNoteTopic,
  words: NoteWords | null,
  now: number,
  log: Logger,
): void {
  shared.writeNote(SHELF, state, terminal, topic, words, now, log);
}
