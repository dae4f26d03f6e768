import type { SourceStateStore } from '../../journal/types.js';
import type { Logger } from '../../util/logger.js';

/**
 * What a Dahua terminal did wrong lately, kept in the journal beside its cursor, so that the
 * status raises an alert naming it (src/status/dahua.ts): a poll that stopped at a bound (an
 * answer too large or endless, more records in one second than a page holds), records dated
 * implausibly, a log renumbered or cleared (read again from its start), an event stream that broke
 * a bound. One note per topic; shown for a day after it was last written.
 */
export type DahuaNoteTopic = 'poll' | 'records' | 'cursor' | 'stream';

export interface DahuaNote {
  topic: DahuaNoteTopic;
  cause: string;
  fix: string;
  /** Epoch ms it was last written. */
  at: number;
}

const KEY = 'dahua-notes';
export const NOTE_SHOWN_MS = 24 * 3_600_000;
const TOPICS: readonly DahuaNoteTopic[] = ['poll', 'records', 'cursor', 'stream'];

export function readDahuaNotes(state: Pick<SourceStateStore, 'get'>, terminal: string): DahuaNote[] {
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
export function activeDahuaNotes(state: Pick<SourceStateStore, 'get'>, terminal: string, now: number): DahuaNote[] {
  return readDahuaNotes(state, terminal).filter((n) => now - n.at < NOTE_SHOWN_MS || n.at > now);
}

/** Writes (or, with null, clears) one topic's note. Never throws (a busy journal is logged). */
export function writeDahuaNote(
  state: SourceStateStore,
  terminal: string,
  topic: DahuaNoteTopic,
  words: { cause: string; fix: string } | null,
  now: number,
  log: Logger,
): void {
  try {
    const notes = readDahuaNotes(state, terminal);
    if (words === null && !notes.some((n) => n.topic === topic)) return;
    const next: Record<string, { at: number; cause: string; fix: string }> = {};
    for (const n of notes) if (n.topic !== topic) next[n.topic] = { at: n.at, cause: n.cause, fix: n.fix };
    if (words) next[topic] = { at: now, ...words };
    state.set({ terminal, key: KEY, value: Object.keys(next).length ? JSON.stringify(next) : '' });
  } catch (e) {
    log.warn({ err: e instanceof Error ? e.message : String(e), topic }, 'could not keep the note for the status');
  }
}
