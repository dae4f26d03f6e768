/**
 * A roster that gives one card to two people (two active rows, two codes): a terminal holding the
 * card for both books a swipe to whichever user it finds first, the other person's punches under
 * the wrong code. Found by a trial: both users got card 555. Which row is right is not known, so
 * neither is used: both people are left alone, as for any bad row. A leaver's row does not count:
 * a card handed on to a new hire is normal.
 */
import type { RosterEntry, RosterProblem } from './types.js';

const NEITHER = 'one card opens for one person only; neither row is used';

/** The entries without those that share a card, each of them added to `problems`. */
export function withoutSharedCards(entries: readonly RosterEntry[], problems: RosterProblem[]): RosterEntry[] {
  const holders = new Map<number, RosterEntry[]>();
  for (const e of entries) {
    if (!e.active || e.card === null || e.card === 0) continue;
    holders.set(e.card, [...(holders.get(e.card) ?? []), e]);
  }
  const shared = new Set<RosterEntry>();
  for (const [card, rows] of holders) {
    if (rows.length < 2) continue;
    // Each row names the first other row with the card (the later ones first, as they are met).
    for (const e of [...rows.slice(1), rows[0]!]) {
      const other = e === rows[0] ? rows[1]! : rows[0]!;
      shared.add(e);
      problems.push({
        where: e.where,
        code: e.code,
        message: `card ${card} is also ${other.where}'s (code ${other.code}): ${NEITHER}`,
      });
    }
  }
  return shared.size === 0 ? [...entries] : entries.filter((e) => !shared.has(e));
}
