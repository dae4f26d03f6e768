/**
 * One card, one person on a terminal. A terminal that holds a card for two users books a swipe
 * to whichever it finds first, so the other person's punches go out under the wrong code. Found
 * by a trial: a roster giving card 555 to two codes put it on both, and a card a visitor badge
 * kept on the terminal (a user the run leaves alone) was given to an employee as well.
 */
import type { AddChange, Plan, RemoveChange, TerminalUser, UpdateChange } from './types.js';

const decimalCard = (text: string): number => (/^\d{1,10}$/.test(text.trim()) ? Number(text.trim()) : 0);

/** The card numbers a terminal user holds (every card where the terminal keeps several). */
function cardsOf(u: TerminalUser): number[] {
  return u.cards ? u.cards.map(decimalCard).filter((n) => n > 0) : u.card > 0 ? [u.card] : [];
}

const sameUser = (u: TerminalUser, c: { uid: number | null; code: string }) =>
  c.uid !== null ? u.uid === c.uid : u.code === c.code;

/**
 * The updates and additions without a card that another user keeps after this run (not removed,
 * its card not changed): such a card is refused and the rest of the change goes (an update left
 * with nothing to change is dropped; an addition gets no card).
 */
export function withoutTakenCards(
  updates: UpdateChange[],
  adds: AddChange[],
  current: readonly TerminalUser[],
  removed: readonly RemoveChange[],
  plan: Plan,
): { updates: UpdateChange[]; adds: AddChange[] } {
  const holders = new Map<number, TerminalUser[]>();
  for (const u of current) {
    if (removed.some((r) => sameUser(u, r))) continue;
    // A user whose card this run changes no longer holds the old one.
    if (updates.some((c) => c.fields.includes('card') && sameUser(u, c))) continue;
    for (const n of cardsOf(u)) holders.set(n, [...(holders.get(n) ?? []), u]);
  }
  const takenBy = (card: number, self: { uid: number | null; code: string } | null) =>
    card > 0 ? (holders.get(card) ?? []).filter((u) => self === null || !sameUser(u, self)) : [];
  const refuse = (c: { code: string; where: string }, card: number, others: TerminalUser[]) => {
    const who = others.map((u) => `user ${u.code}${u.uid === null ? '' : ` (uid ${u.uid})`}`).join(', ');
    plan.refused.push({
      code: c.code,
      where: c.where,
      reason: `card ${card} not given: this terminal holds it for ${who}, and one card must open for one person only; take it from ${others.length === 1 ? 'that user' : 'those users'} first (their own card in the roster, 0, or their removal)`,
    });
  };

  const keptUpdates: UpdateChange[] = [];
  for (const c of updates) {
    const others = c.fields.includes('card') ? takenBy(c.card, c) : [];
    if (others.length === 0) {
      keptUpdates.push(c);
      continue;
    }
    refuse(c, c.card, others);
    const fields = c.fields.filter((f) => f !== 'card');
    if (fields.length === 0) continue;
    const { cardText: _text, ...rest } = c;
    keptUpdates.push({ ...rest, card: c.before.card, fields });
  }
  const keptAdds = adds.map((c) => {
    const others = takenBy(c.card, null);
    if (others.length === 0) return c;
    refuse(c, c.card, others);
    const { cardText: _text, ...rest } = c;
    return { ...rest, card: 0 };
  });
  return { updates: keptUpdates, adds: keptAdds };
}
