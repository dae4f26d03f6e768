/**
 * The users of a push terminal as user sync sees them: what the terminal reported (OPERLOG and
 * USERINFO uploads, and the commands it confirmed, all kept in the journal), with the effect of
 * the user commands still waiting for it laid over them. A second sync while commands wait thus
 * plans nothing for them: a change is never queued twice.
 */
import type { PushUser, TerminalCommand } from '../../journal/types.js';
import { userChangeOf } from '../../sources/adms/index.js';
import type { TerminalUser } from '../types.js';

/** A card as a push terminal reports it (text): a decimal number, else none. */
export const cardNumber = (card: string): number => (/^\d{1,10}$/.test(card.trim()) ? Number(card.trim()) : 0);

export function toTerminalUser(u: PushUser): TerminalUser {
  // A record without Pri counts as a user: push firmware always sends Pri with USER records.
  const cards = u.card.trim() ? [u.card.trim()] : [];
  return { uid: null, code: u.pin, name: u.name, card: cardNumber(u.card), cards, privilege: u.privilege ?? 0 };
}

/** The users once the waiting commands (oldest first) are done; and how many of them are user commands. */
export function withPending(
  known: readonly PushUser[],
  open: readonly TerminalCommand[],
): { users: TerminalUser[]; pending: number } {
  const byPin = new Map(known.map((u) => [u.pin, toTerminalUser(u)]));
  let pending = 0;
  for (const c of open) {
    const change = userChangeOf(c.command);
    if (!change) continue;
    pending++;
    if ('upsert' in change) byPin.set(change.upsert.pin, toTerminalUser(change.upsert));
    else byPin.delete(change.remove);
  }
  return { users: [...byPin.values()], pending };
}
