import type { Config } from '../../config/schema.js';
import { matchesEmployees } from '../../config/sinks.js';
import type { Journal } from '../../journal/journal.js';
import { recentUnknownCards } from '../../journal/unknown-cards.js';
import { readCodeMap } from '../../sources/serial/index.js';

/**
 * Before `punches retry`: the punches of unknown badge cards of each serial terminal with a code
 * map (or of `terminal` alone) whose cards the map holds now are given their mapped codes. One
 * line per terminal where any changed, for the admin to see what the retry sends.
 */
export function remapCards(config: Config, journal: Journal, terminal?: string): string[] {
  const lines: string[] = [];
  for (const t of config.terminals) {
    if (t.kind !== 'serial' || !t.codeMap || (terminal !== undefined && t.name !== terminal)) continue;
    // A file that cannot be read maps nothing: those punches stay as they are (check says why).
    const { map } = readCodeMap(t.codeMap);
    const r = journal.queries.remapUnknownCards(t.name, (card) => map.lookup(card));
    if (r.remapped + r.kept === 0) continue;
    lines.push(
      `${t.name}: ${r.remapped === 1 ? '1 punch of an unknown card now has the code' : `${r.remapped} punches of unknown cards now have the codes`} its code map gives${r.kept ? `; ${r.kept} left as they are (the same punch is journalled under the mapped code)` : ''}`,
    );
  }
  return lines;
}

/**
 * After `punches retry`: the punches of unknown cards already delivered to the default sink. The
 * retry leaves them: sent again under the mapped code, the HRMS would hold both. Said, so that "0
 * rejected punches queued again" does not read as if nothing had been sent (a new-user trial
 * expected them sent again). What the HRMS holds depends on its kind (`defaultSink`): one that
 * takes any code holds them under card:<number>, for the admin to correct there; Frappe HR and
 * Odoo took them only under the employee the admin gave that code (nothing to correct: it once
 * said there was).
 */
export function deliveredCardLines(journal: Journal, terminal?: string, defaultSink?: string): string[] {
  const byEmployee = matchesEmployees(defaultSink);
  return recentUnknownCards(journal.db, 0)
    .filter((r) => r.delivered > 0 && (terminal === undefined || r.terminal === terminal))
    .map((r) => {
      const them = r.delivered === 1 ? 'it' : 'them';
      const held = byEmployee
        ? `the HRMS holds ${them} under the employee who holds ${r.delivered === 1 ? 'that' : 'each'} card:<number> code there (it takes a punch only under a code one of its employees holds)`
        : `the HRMS holds ${them} under card:<number>`;
      const fix = byEmployee
        ? ''
        : `: correct ${them} in the HRMS (punchgate punches --terminal ${r.terminal} --code ${r.newestCode} lists ${them})`;
      return `${r.terminal}: ${r.delivered === 1 ? '1 punch of a card not in the code map when read was' : `${r.delivered} punches of cards not in the code map when read were`} delivered before (newest ${r.newestCode} at ${r.newestLogTime.slice(0, 16)}): ${held}; retry does not send delivered punches again (the HRMS would then hold both)${fix}`;
    });
}
