import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import { readListenRefusals } from '../sources/hikvision/listen-state.js';
import { activeNotes, NOTE_SHOWN_MS } from '../sources/hikvision/notes.js';
import { ALERT } from './alert-words.js';
import { localTime } from '../util/local-time.js';
import type { Alert } from './types.js';

/**
 * Alerts about Hikvision terminals that misbehaved lately (see src/sources/hikvision/notes.ts): a
 * search it does not end, an answer or an alert-stream part beyond the bounds, implausible
 * events, a read position set back. Each names the terminal, says what happened and the fix.
 */
export function hikvisionAlerts(journal: Journal, config: Config, now: number): Alert[] {
  const out: Alert[] = [];
  for (const t of config.terminals) {
    if (t.kind !== 'hikvision') continue;
    for (const n of activeNotes(journal.sourceState, t.name, now)) {
      out.push({
        kind: `hikvision-${n.topic}`,
        cause: `terminal ${t.name}: ${n.cause} (last at ${localTime(n.at)})`,
        fix: n.fix,
      });
    }
    if (t.listen) {
      const r = readListenRefusals(journal.sourceState, t.name);
      if (r && now - r.lastAt < NOTE_SHOWN_MS)
        out.push(
          ALERT.hikvisionListenStranger(
            t.name,
            t.allowFrom?.join(', ') ?? new URL(t.url).hostname.replace(/^\[|\]$/g, ''),
            r,
          ),
        );
    }
  }
  return out;
}
