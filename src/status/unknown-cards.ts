import type { Database } from 'better-sqlite3';
import type { Config } from '../config/schema.js';
import type { KnownCard } from '../journal/unknown-cards.js';
import { recentUnknownCards, UNKNOWN_CARDS_DAYS, waitingUnknownCards } from '../journal/unknown-cards.js';
import { readCodeMap, UNKNOWN_CARD_PREFIX } from '../sources/serial/index.js';
import { ALERT } from './alert-words.js';
import type { Alert } from './types.js';

const DAY_MS = 86_400_000;

/**
 * One alert per terminal whose punches carried badge cards not in its code map: those journalled
 * in the last days whatever their state (an HRMS that takes any code delivered them, and the
 * status said nothing), and those still waiting whatever their age. A card the code map holds now
 * is not said as unknown (the alert once stayed 7 days after the admin mapped it); its punches
 * still waiting under `card:<number>` are said apart, for the retry that remaps them. The status
 * and `check` say it in these words (a read-only journal file will do).
 */
export function unknownCardAlerts(db: Database, terminals: Config['terminals'], now: number): Alert[] {
  const codeMaps = new Map(
    terminals.flatMap((t) => (t.kind === 'serial' && t.codeMap ? [[t.name, t.codeMap] as const] : [])),
  );
  const known = knownCards(codeMaps);
  const recent = new Map(recentUnknownCards(db, now - UNKNOWN_CARDS_DAYS * DAY_MS, known).map((r) => [r.terminal, r]));
  const waiting = new Map(
    waitingUnknownCards(db, known)
      .filter((w) => w.count + w.mapped > 0)
      .map((w) => [w.terminal, w]),
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

/**
 * The cards each terminal's code map holds now, read from its file as the running source reads it
 * (a file that cannot be read knows no card: its punches stay said, and check says why).
 */
function knownCards(codeMaps: ReadonlyMap<string, string>): KnownCard {
  const maps = new Map([...codeMaps].map(([terminal, file]) => [terminal, readCodeMap(file).map]));
  return (terminal, code) =>
    code.startsWith(UNKNOWN_CARD_PREFIX) &&
    maps.get(terminal)?.lookup(code.slice(UNKNOWN_CARD_PREFIX.length)) !== undefined;
}
