import type { SourceStateStore } from '../../journal/types.js';
import type { Logger } from '../../util/logger.js';
import * as shared from '../device-notes.js';
import type { NoteShelf, NoteWords, StoredNote } from '../device-notes.js';

/**
 * What a Hikvision terminal did wrong lately, kept in the journal beside its cursor so that the
 * status (of the daemon and of `punchgate status`) raises an alert naming it: a poll that
 * reached a bound (a search the device does not end, an answer too large), an alert stream that
 * broke one, events numbered or dated implausibly, a read position found past the device's
 * events, a clock set by syncClock across a time zone's difference. One note per topic, in words (a cause and the fix to try); a condition that lasts
 * rewrites its note at each occurrence and clears it once over; every note is shown for
 * NOTE_SHOWN_MS after it was last written. The reading and writing is src/sources/device-notes.ts.
 */
export type NoteTopic = 'poll' | 'stream' | 'events' | 'cursor' | 'clock';

export type { NoteWords };

export interface DeviceNote extends StoredNote<NoteTopic> {
  /** `cause: fix`, the one-line form. */
  message: string;
}

export { NOTE_SHOWN_MS } from '../device-notes.js';

const SHELF: NoteShelf<NoteTopic> = { key: 'notes', topics: ['poll', 'stream', 'events', 'cursor', 'clock'] };

const withMessage = (n: StoredNote<NoteTopic>): DeviceNote => ({ ...n, message: `${n.cause}: ${n.fix}` });

export function readNotes(state: Pick<SourceStateStore, 'get'>, terminal: string): DeviceNote[] {
  return shared.readNotes(SHELF, state, terminal).map(withMessage);
}

/** The notes to show now, oldest topic first. */
export function activeNotes(state: Pick<SourceStateStore, 'get'>, terminal: string, now: number): DeviceNote[] {
  return shared.activeNotes(SHELF, state, terminal, now).map(withMessage);
}

/**
 * Writes (or, with null, clears) the note of one topic. Never throws: a journal that cannot take
 * it now is logged, and the next occurrence writes it again.
 */
export function writeNote(
  state: SourceStateStore,
  terminal: string,
  topic: NoteTopic,
  words: NoteWords | null,
  now: number,
  log: Logger,
): void {
  shared.writeNote(SHELF, state, terminal, topic, words, now, log);
}
