import type { SourceStateStore } from '../../journal/types.js';
import type { Logger } from '../../util/logger.js';
import * as shared from '../device-notes.js';
import type { NoteShelf, NoteWords, StoredNote } from '../device-notes.js';

/**
 * What a push terminal did that the receiver had to refuse, kept in the journal so that the status
 * raises an alert naming it (src/status/dahua.ts): an upload larger than adms.maxBodyBytes, one
 * compressed in a way punchgate cannot read, one sent without its length, or one whose body ends
 * short of a whole record (its Content-Length too short), which the terminal
 * sends again and again while its later punches wait behind it; or the same upload taken again
 * and again (repeats.ts). Cleared by the next upload of the terminal that goes through. The
 * reading and writing is src/sources/device-notes.ts.
 */
/** Uploads refused whole: each note ends when an upload of that table goes through (handler-kit.ts). */
export const REFUSAL_TOPICS = ['too-large', 'unreadable-coding', 'no-length', 'cut-body'] as const;
export type RefusalTopic = (typeof REFUSAL_TOPICS)[number];
export const PUSH_NOTE_TOPICS = [...REFUSAL_TOPICS, 'repeats'] as const;
export type PushNoteTopic = (typeof PUSH_NOTE_TOPICS)[number];

export type PushNote = StoredNote<PushNoteTopic>;

// Rewritten at most once a minute while the same words hold: a terminal retrying every few
// seconds does not cost the journal a write each time.
const SHELF: NoteShelf<PushNoteTopic> = { key: 'push-notes', topics: PUSH_NOTE_TOPICS, keepSameForMs: 60_000 };

/** The notes to show now. */
export function activePushNotes(state: Pick<SourceStateStore, 'get'>, terminal: string, now: number): PushNote[] {
  return shared.activeNotes(SHELF, state, terminal, now);
}

/** Writes (or, with null, clears) one topic's note. Never throws (a busy journal is logged). */
export function writePushNote(
  state: SourceStateStore,
  terminal: string,
  topic: PushNoteTopic,
  words: NoteWords | null,
  now: number,
  log: Logger,
): void {
  shared.writeNote(SHELF, state, terminal, topic, words, now, log);
}

/** Whether the terminal has a note on `topic` (so a working upload clears it only then). */
export function hasPushNote(state: Pick<SourceStateStore, 'get'>, terminal: string, topic: PushNoteTopic): boolean {
  return shared.readNotes(SHELF, state, terminal).some((n) => n.topic === topic);
}

/** The words of an upload refused as too large. */
export function tooLargeWords(bytes: number, maxBytes: number, table: string): NoteWords {
  return {
    cause: `an upload (${table}) of ${bytes.toLocaleString('en-US')} bytes or more was refused: larger than adms.maxBodyBytes (${maxBytes.toLocaleString('en-US')}); the terminal sends it again and again, and its later punches wait on the terminal behind it`,
    fix: `raise adms.maxBodyBytes above ${bytes.toLocaleString('en-US')} (twice that is safe) and reload (sudo systemctl reload punchgate): the terminal's next try goes through`,
  };
}

/** The words of an upload refused as compressed in a way punchgate cannot read (content-coding.ts). */
export function unreadableCodingWords(coding: string, why: string, table: string): NoteWords {
  return {
    cause: `an upload (${table}) compressed as "${coding}" (Content-Encoding) was refused: ${why}; the terminal keeps it and sends it again, and its later punches wait on the terminal behind it`,
    fix: `switch compression off on the terminal, or on the proxy between it and this box if there is one; if the terminal compresses on its own, note its model and firmware version and update the firmware: its next upload punchgate can read goes through`,
  };
}

/** The words of an upload refused as sent without its length (handler-kit.ts). */
export function noLengthWords(table: string): NoteWords {
  return {
    cause: `an upload (${table}) came without a Content-Length (and not chunked), so its body cannot be told from what follows it on the connection: refused (411), never answered OK; the terminal keeps it and sends it again, and its later punches wait on the terminal behind it`,
    fix: `if a proxy sits between the terminal and this box, make it pass the upload's Content-Length on (or send it chunked), or let the terminal reach the box directly; else note the terminal's model and firmware version and update the firmware: its next upload with a length goes through`,
  };
}

/** The words of an upload refused as cut short, `why` (attlog.ts's cutLastLine, or an empty body) (handler-kit.ts). */
export function cutBodyWords(why: string, table: string): NoteWords {
  return {
    cause: `an upload (${table}) was refused as cut short: ${why}; most likely its Content-Length was shorter than the body it sent. Nothing of it was journalled or answered OK: the terminal keeps it and sends it again, and its later punches wait on the terminal behind it`,
    fix: `if a proxy sits between the terminal and this box, make it pass the upload's Content-Length on unchanged, or let the terminal reach the box directly; else note the terminal's model and firmware version and update the firmware: its next whole upload goes through`,
  };
}
