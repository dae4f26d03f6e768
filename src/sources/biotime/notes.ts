import type { SourceStateStore } from '../../journal/types.js';
import type { Logger } from '../../util/logger.js';
import * as shared from '../device-notes.js';
import type { NoteShelf, NoteWords, StoredNote } from '../device-notes.js';

/**
 * What a BioTime server did wrong lately, kept in the journal beside its cursor so that the
 * status (of the daemon and of `punchgate status`) raises an alert naming it. One note per topic,
 * in words (a cause and the fix to try); a condition that lasts rewrites its note, one that is
 * over clears it (the table note stays for a day: it tells of something that happened once).
 * The reading and writing is src/sources/device-notes.ts.
 */
export type BioNoteTopic = 'api' | 'password' | 'table' | 'lag' | 'poll' | 'rows';

export type { NoteWords };
export type BioNote = StoredNote<BioNoteTopic>;
export { NOTE_SHOWN_MS } from '../device-notes.js';

const SHELF: NoteShelf<BioNoteTopic> = {
  key: 'notes',
  topics: ['api', 'password', 'table', 'lag', 'poll', 'rows'],
  // A server polled often repeats the same complaint: the same words within a minute are not rewritten.
  keepSameForMs: 60_000,
};

export function readNotes(state: Pick<SourceStateStore, 'get'>, terminal: string): BioNote[] {
  return shared.readNotes(SHELF, state, terminal);
}

/** The notes to show now. */
export function activeNotes(state: Pick<SourceStateStore, 'get'>, terminal: string, now: number): BioNote[] {
  return shared.activeNotes(SHELF, state, terminal, now);
}

/** Writes (or, with null, clears) the note of one topic. Never throws (logged instead). */
export function writeNote(
  state: SourceStateStore,
  terminal: string,
  topic: BioNoteTopic,
  words: NoteWords | null,
  now: number,
  log: Logger,
): void {
  shared.writeNote(SHELF, state, terminal, topic, words, now, log);
}
