/**
 * The people of a Hikvision terminal as user sync sees them: the user's employeeNo is the code,
 * its cards the card (heldCard: one the roster can name, or OTHER_CARDS), and a user who may use the device's own
 * menu (localUIRight) an administrator, never removed without --include-admins.
 */
import type { HikCard, HikUser } from '../../sources/hikvision/index.js';
import { ADMINISTRATOR, heldCard, HTTP_TERMINAL_PROFILE } from '../http-terminal-sync.js';
import type { TerminalProfile, TerminalUser } from '../types.js';

/** ISAPI keeps 32 bytes of a name and of an employeeNo; card numbers are decimal text. */
export const HIK_PROFILE: TerminalProfile = HTTP_TERMINAL_PROFILE;

export function toTerminalUsers(users: readonly HikUser[], cards: readonly HikCard[]): TerminalUser[] {
  const held = new Map<string, string[]>();
  for (const c of cards) held.set(c.employeeNo, [...(held.get(c.employeeNo) ?? []), c.cardNo]);
  return users.map((u) => ({
    uid: null,
    code: u.employeeNo,
    name: u.name,
    card: heldCard(held.get(u.employeeNo) ?? []),
    cards: held.get(u.employeeNo) ?? [],
    privilege: u.localUIRight ? ADMINISTRATOR : 0,
  }));
}

/** The card numbers a user holds, as the device writes them. */
export const cardsOf = (cards: readonly HikCard[], employeeNo: string): string[] =>
  cards.filter((c) => c.employeeNo === employeeNo).map((c) => c.cardNo);
