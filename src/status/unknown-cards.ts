import type { Database } from 'better-sqlite3';
import type { Config } from '../config/schema.js';
import { matchesEmployees } from '../config/sinks.js';
import type { KnownCard } from '../journal/unknown-cards.js';
import {
  deliveredCardCodes,
  recentUnknownCards,
  UNKNOWN_CARDS_DAYS,
  waitingUnknownCards,
} from '../journal/unknown-cards.js';
import { readCodeMap, UNKNOWN_CARD_PREFIX, type CodeMap } from '../sources/serial/index.js';
import { ALERT } from './alert-words.js';
import type { Alert } from './types.js';

const DAY_MS = 86_400_000;

/**
 * One alert per terminal whose punches carried badge cards not in its code map: those journalled
 * in the last days whatever their state (an HRMS that takes any code delivered them, and the
 * status said nothing), and those still waiting whatever their age. A card the code map holds now,
 * or one an HRMS that matches codes to employees took lately, is not said as unknown (the alert
 * once stayed 7 days after the admin mapped it, in the map or in the HRMS); its punches
 * still waiting under `card:<number>` are said apart, for the retry that remaps them. The status
 * and `check` say it in these words (a read-only journal file will do).
 */
export function unknownCardAlerts(
  db: Database,
  terminals: Config['terminals'],
  now: number,
  /** The kind of the default sink (the one whose delivery the punches table holds). */
  defaultSink?: string,
): Alert[] {
  const codeMaps = new Map(
    terminals.flatMap((t) => (t.kind === 'serial' && t.codeMap ? [[t.name, t.codeMap] as const] : [])),
  );
  const since = now - UNKNOWN_CARDS_DAYS * DAY_MS;
  const inHrms =
    // An HRMS that matches codes to employees took a card:<number> punch only under an employee's code:
    // the admin mapped the card there. The seed HRMS takes any code: its delivery says nothing.
    matchesEmployees(defaultSink)
      ? new Set(deliveredCardCodes(db, since).map((c) => `${c.terminal}\u0000${c.code}`))
      : new Set<string>();
  const inMap = knownCards(codeMaps);
  const known: KnownCard = (terminal, code) => inMap(terminal, code) || inHrms.has(`${terminal}\u0000${code}`);
  const recent = new Map(recentUnknownCards(db, since, known).map((r) => [r.terminal, r]));
  const waiting = new Map(
    // Only the code map remaps a waiting punch (remap-cards.ts): one of a card the HRMS knows waits
    // under card:<number> still, said as waiting, not as "now in the code map".
    waitingUnknownCards(db, inMap)
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
  // Each file is read at the first card asked of its terminal: a status built with no unknown card
  // (each minute, each scrape of /metrics) reads none.
  const maps = new Map<string, CodeMap | undefined>();
  const mapOf = (terminal: string): CodeMap | undefined => {
    if (!maps.has(terminal)) {
      const file = codeMaps.get(terminal);
      maps.set(terminal, file === undefined ? undefined : readCodeMap(file).map);
    }
    return maps.get(terminal);
  };
  return (terminal, code) =>
    code.startsWith(UNKNOWN_CARD_PREFIX) &&
    mapOf(terminal)?.lookup(code.slice(UNKNOWN_CARD_PREFIX.length)) !== undefined;
}
