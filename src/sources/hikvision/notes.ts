import type { SourceStateStore } from '../../journal/types.js';
import type { Logger } from '../../util/logger.js';

/**
 * What a Hikvision terminal did wrong lately, kept in the journal beside its cursor so that the
 * status (of the daemon and of `punchgate status`) raises an alert naming it: a poll that
 * reached a bound (a search the device does not end, an answer too large), an alert stream that
 * broke one, events numbered or dated implausibly, a read position found past the device's
 * events. One note per topic, in words (a cause and the fix to try); a condition that lasts
 * rewrites its note at each occurrence and clears it once over; every note is shown for
 * NOTE_SHOWN_MS after it was last written.
 */
export type NoteTopic = 'poll' | 'stream' | 'events' | 'cursor';

export interface DeviceNote {
  topic: NoteTopic;
  /** Epoch ms it was last written. */
  at: number;
  message: string;
}

const KEY = 'notes';
export const NOTE_SHOWN_MS = 24 * 3_600_000;
const TOPICS: readonly NoteTopic[] = ['poll', 'stream', 'events', 'cursor'];

export function readNotes(state: Pick<SourceStateStore, 'get'>, terminal: string): DeviceNote[] {
  const raw = state.get(terminal, KEY);
  if (!raw) return [];
  try {
    const o = JSON.parse(raw) as Record<string, { at?: unknown; message?: unknown }>;
    return TOPICS.flatMap((topic) => {
      const n = o[topic];
      return n && typeof n.at === 'number' && typeof n.message === 'string'
        ? [{ topic, at: n.at, message: n.message }]
        : [];
    });
  } catch {
    return [];
  }
}

/** The notes to show now, oldest topic first. */
export function activeNotes(state: Pick<SourceStateStore, 'get'>, terminal: string, now: number): DeviceNote[] {
  return readNotes(state, terminal).filter((n) => now - n.at < NOTE_SHOWN_MS || n.at > now);
}

/**
 * Writes (or, with null, clears) the note of one topic. Never throws: a journal that cannot take
 * it now is logged, and the next occurrence writes it again.
 */
export function writeNote(
  state: SourceStateStore,
  terminal: string,
  topic: NoteTopic,
  message: string | null,
  now: number,
  log: Logger,
): void {
  try {
    const notes = readNotes(state, terminal);
    const had = notes.some((n) => n.topic === topic);
    if (message === null && !had) return;
    const next: Record<string, { at: number; message: string }> = {};
    for (const n of notes) if (n.topic !== topic) next[n.topic] = { at: n.at, message: n.message };
    if (message !== null) next[topic] = { at: now, message };
    state.set({ terminal, key: KEY, value: Object.keys(next).length ? JSON.stringify(next) : '' });
  } catch (e) {
    log.warn({ err: e instanceof Error ? e.message : String(e), topic }, 'could not keep the note for the status');
  }
}
