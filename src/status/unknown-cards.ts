import type { Database } from 'better-sqlite3';
import type { Config } from '../config/schema.js';
import { recentUnknownCards, UNKNOWN_CARDS_DAYS, waitingUnknownCards } from '../journal/unknown-cards.js';
import { ALERT } from './alert-words.js';
import type { Alert } from './types.js';

const DAY_MS = 86_400_000;

/**
 * One alert per terminal whose punches carried badge cards not in its code map: those journalled
 * in the last days whatever their state (an HRMS that takes any code delivered them, and the
 * status said nothing), and those still waiting whatever their age. The status and `check` say it
 * in these words (a read-only journal file will do).
 */
export function unknownCardAlerts(db: Database, terminals: Config['terminals'], now: number): Alert[] {
  const recent = new Map(recentUnknownCards(db, now - UNKNOWN_CARDS_DAYS * DAY_MS).map((r) => [r.terminal, r]));
  const waiting = new Map(waitingUnknownCards(db).map((w) => [w.terminal, w]));
  const codeMaps = new Map(
    terminals.flatMap((t) => (t.kind === 'serial' && t.codeMap ? [[t.name, t.codeMap] as const] : [])),
  );
  const names = [...new Set([...recent.keys(), ...waiting.keys()])].sort();
  return names.map((terminal) => {
    const codeMap = codeMaps.get(terminal);
    const r = recent.get(terminal);
    const w = waiting.get(terminal);
    return ALERT.unknownCards({
      terminal,
      days: UNKNOWN_CARDS_DAYS,
      ...(r ? { recent: r } : {}),
      ...(w ? { waiting: w } : {}),
      ...(codeMap ? { codeMap } : {}),
    });
  });
}
