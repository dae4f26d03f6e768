import type { SourceStateStore } from '../../journal/types.js';
import type { Logger } from '../../util/logger.js';

/**
 * What a BioTime server did wrong lately, kept in the journal beside its cursor so that the
 * status (of the daemon and of `punchgate status`) raises an alert naming it. One note per topic,
 * in words (a cause and the fix to try); a condition that lasts rewrites its note, one that is
 * over clears it (the table note stays for a day: it tells of something that happened once).
 */
export type BioNoteTopic = 'api' | 'password' | 'table' | 'lag' | 'poll' | 'rows';

export interface NoteWords {
  cause: string;
  fix: string;
}

export interface BioNote extends NoteWords {
  topic: BioNoteTopic;
  at: number;
}

const KEY = 'notes';
export const NOTE_SHOWN_MS = 24 * 3_600_000;
const TOPICS: readonly BioNoteTopic[] = ['api', 'password', 'table', 'lag', 'poll', 'rows'];

export function readNotes(state: Pick<SourceStateStore, 'get'>, terminal: string): BioNote[] {
  const raw = state.get(terminal, KEY);
  if (!raw) return [];
  try {
    const o = JSON.parse(raw) as Record<string, { at?: unknown; cause?: unknown; fix?: unknown }>;
    return TOPICS.flatMap((topic) => {
      const n = o[topic];
      return n && typeof n.at === 'number' && typeof n.cause === 'string' && typeof n.fix === 'string'
        ? [{ topic, at: n.at, cause: n.cause, fix: n.fix }]
        : [];
    });
  } catch {
    return [];
  }
}

/** The notes to show now. */
export function activeNotes(state: Pick<SourceStateStore, 'get'>, terminal: string, now: number): BioNote[] {
  return readNotes(state, terminal).filter((n) => now - n.at < NOTE_SHOWN_MS || n.at > now);
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
  try {
    const notes = readNotes(state, terminal);
    const had = notes.find((n) => n.topic === topic);
    if (words === null && !had) return;
    if (words && had && had.cause === words.cause && had.fix === words.fix && now - had.at < 60_000) return;
    const next: Record<string, { at: number } & NoteWords> = {};
    for (const n of notes) if (n.topic !== topic) next[n.topic] = { at: n.at, cause: n.cause, fix: n.fix };
    if (words !== null) next[topic] = { at: now, cause: words.cause, fix: words.fix };
    state.set({ terminal, key: KEY, value: Object.keys(next).length ? JSON.stringify(next) : '' });
  } catch (e) {
    log.warn({ err: e instanceof Error ? e.message : String(e), topic }, 'could not keep the note for the status');
  }
}
