/**
 * What user sync does alike on the HTTP terminals (Dahua: dahua/, Hikvision: hikvision/): the
 * same limits of what a terminal stores, the same reading of its card numbers, and the same run
 * of changes through one connection under the source's password rule (its poller's withClient),
 * each removal backed up first (removal-backup.ts). How a user is read, added, changed or removed is each kind's own.
 */
import { messageOf } from '../util/errors.js';
import type { ApplyOutcome } from './adapter.js';
import { INTERRUPTED, isStopped } from './interrupt.js';
import { OTHER_CARDS, type Change, type ChangeResult, type TerminalProfile } from './types.js';

/** Both keep 32 bytes of a name and of a user's code (Dahua UserID, ISAPI employeeNo); card numbers are text. */
export const HTTP_TERMINAL_PROFILE: TerminalProfile = {
  nameBytes: 32,
  codeBytes: 32,
  numericCodes: false,
  maxCard: 0xffffffff,
  maxUid: null,
};

/** The privilege user sync gives a user the terminal marks as an administrator (never removed without --include-admins). */
export const ADMINISTRATOR = 14;

/** A terminal's card as a number (leading zeros are the same card), or 0 when it is not one. */
export const cardNumber = (cardNo: string): number =>
  /^\d{1,20}$/.test(cardNo) && Number(cardNo) <= 0xffffffff ? Number(cardNo) : 0;

/**
 * The card of a person holding `cards` (Hikvision, Dahua: text), as the planner compares it with
 * the roster's: 0 for none, the number of one card the roster can name, else OTHER_CARDS. Taking
 * the first card alone, or 0 for one past 4294967295 (a 7-byte UID), made "card 0" (a lost badge
 * revoked) or "card 111" (the only card) look done while another card still opened the door.
 */
export function heldCard(cards: readonly string[]): number {
  if (cards.length === 0) return 0;
  const n = cards.length === 1 ? cardNumber(cards[0]!) : 0;
  return n !== 0 ? n : OTHER_CARDS;
}

/** What a change gives the terminal as its card ('' = none): the roster's spelling, leading zeros kept. */
export const cardTextOf = (c: { card: number; cardText?: string }): string =>
  c.card ? (c.cardText ?? String(c.card)) : '';

/** Whether the cards a terminal shows are exactly the change's card (compared as numbers). */
export const holdsCard = (cards: readonly string[], card: number): boolean =>
  card ? cards.length === 1 && cardNumber(cards[0] ?? '') === card : cards.length === 0;

/**
 * Applies the changes in order through one use of the terminal (`withClient`). A change the
 * terminal refuses (`isRefusal`: it answered with an error) fails alone; one that gets no answer
 * (the connection broke, a timeout, the password refused) stops the run: the rest are not attempted.
 * A terminal that cannot be used at all is a warning. Then `verify` reads the users back: a change
 * is applied only if the terminal shows it (see read-back.ts).
 */
export async function applyInOrder<C>(
  changes: readonly Change[],
  steps: {
    withClient: (fn: (client: C) => Promise<void>) => Promise<void>;
    isRefusal: (e: unknown) => boolean;
    applyOne: (client: C, change: Change) => Promise<ChangeResult>;
    verify: (results: ChangeResult[], warnings: string[]) => Promise<void>;
    /** Aborts when the admin interrupts the command: the changes after the one in progress are not attempted. */
    stop?: AbortSignal;
  },
): Promise<ApplyOutcome> {
  const { withClient, isRefusal, applyOne } = steps;
  const results: ChangeResult[] = changes.map(() => ({ status: 'not-attempted' }));
  const warnings: string[] = [];
  if (changes.length === 0) return { results, warnings };
  try {
    await withClient(async (c) => {
      let broken: string | null = null;
      for (const [i, change] of changes.entries()) {
        const skip = broken ?? (isStopped(steps.stop) ? INTERRUPTED : null);
        if (skip) {
          results[i] = { status: 'not-attempted', error: skip };
          continue;
        }
        try {
          results[i] = await applyOne(c, change);
        } catch (e) {
          if (isRefusal(e)) {
            results[i] = { status: 'failed', error: `refused by the terminal: ${messageOf(e)}` };
          } else {
            broken = `not attempted: an earlier change got no answer (${messageOf(e)})`;
            results[i] = { status: 'unknown', error: `no answer (${messageOf(e)})` };
          }
        }
      }
    });
  } catch (e) {
    warnings.push(`the terminal could not be used for the changes: ${messageOf(e)}`);
  }
  await steps.verify(results, warnings);
  return { results, warnings };
}
