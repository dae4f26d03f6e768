import type { SourceStateStore } from '../journal/types.js';
import type { Logger } from '../util/logger.js';

/**
 * What a terminal (or server) did wrong lately, kept in the journal beside its cursor so that the
 * status raises an alert naming it. One note per topic, in words (a cause and the fix to try); a
 * condition that lasts rewrites its note, one that is over clears it; every note is shown for
 * NOTE_SHOWN_MS after it was last written. Each source keeps its notes under its own key and
 * topics (a NoteShelf); the reading and writing is the same for all of them, here.
 */

/** What went wrong, in a site admin's words, and what to try. */
export interface NoteWords {
  cause: string;
  fix: string;
}

export interface StoredNote<T extends string> extends NoteWords {
  topic: T;
  /** Epoch ms it was last written. */
  at: number;
}

/** Where one source keeps its notes and which topics it has. */
export interface NoteShelf<T extends string> {
  /** The source-state key the notes are kept under. */
  key: string;
  /** The topics, in the order they are read back. */
  topics: readonly T[];
  /**
   * A note written again with the same words within this many ms is left as it was (spares the
   * journal a write per poll); without it, every write rewrites the note.
   */
  keepSameForMs?: number;
}

export const NOTE_SHOWN_MS = 24 * 3_600_000;

export function readNotes<T extends string>(
  shelf: NoteShelf<T>,
  state: Pick<SourceStateStore, 'get'>,
  terminal: string,
): StoredNote<T>[] {
  const raw = state.get(terminal, shelf.key);
  if (!raw) return [];
  try {
    const o = JSON.parse(raw) as Record<string, { at?: unknown; cause?: unknown; fix?: unknown }>;
    return shelf.topics.flatMap((topic) => {
      const n = o[topic];
      return n && typeof n.at === 'number' && typeof n.cause === 'string' && typeof n.fix === 'string'
        ? [{ topic, at: n.at, cause: n.cause, fix: n.fix }]
        : [];
    });
  } catch {
    return [];
  }
}

/** The notes to show now, in the shelf's topic order. */
export function activeNotes<T extends string>(
  shelf: NoteShelf<T>,
  state: Pick<SourceStateStore, 'get'>,
  terminal: string,
  now: number,
): StoredNote<T>[] {
  return readNotes(shelf, state, terminal).filter((n) => now - n.at < NOTE_SHOWN_MS || n.at > now);
}

/**
 * Writes (or, with null, clears) the note of one topic. Never throws: a journal that cannot take
 * it now is logged, and the next occurrence writes it again.
 */
export function writeNote<T extends string>(
  shelf: NoteShelf<T>,
  state: SourceStateStore,
  terminal: string,
  topic: T,
  words: NoteWords | null,
  now: number,
  log: Logger,
): void {
  try {
    const notes = readNotes(shelf, state, terminal);
    const had = notes.find((n) => n.topic === topic);
    if (words === null && !had) return;
    if (
      words &&
      had &&
      shelf.keepSameForMs !== undefined &&
      had.cause === words.cause &&
      had.fix === words.fix &&
      now - had.at < shelf.keepSameForMs
    )
      return;
    const next: Record<string, { at: number } & NoteWords> = {};
    for (const n of notes) if (n.topic !== topic) next[n.topic] = { at: n.at, cause: n.cause, fix: n.fix };
    if (words !== null) next[topic] = { at: now, cause: words.cause, fix: words.fix };
    state.set({ terminal, key: shelf.key, value: Object.keys(next).length ? JSON.stringify(next) : '' });
  } catch (e) {
    log.warn({ err: e instanceof Error ? e.message : String(e), topic }, 'could not keep the note for the status');
  }
}
