import type { PushUserChange } from '../../journal/types.js';
import { parseUserFields } from './operlog.js';

/**
 * The commands punchgate queues for push terminals (`C:<id>:<command>` in a getrequest
 * answer), and what the receiver knows about them.
 */

/** Commands an admin queues by name with `punchgate terminals command`. */
export const ADMIN_COMMANDS = ['INFO', 'CHECK', 'LOG', 'REBOOT'] as const;
export type AdminCommand = (typeof ADMIN_COMMANDS)[number];

/** `DATA QUERY ATTLOG`: the terminal uploads the punches of that span again (wall-clock times). */
export function backfillCommand(from: string, to: string): string {
  return `DATA QUERY ATTLOG StartTime=${from}\tEndTime=${to}`;
}

/** `DATA QUERY USERINFO`: the terminal uploads every user it holds (a USERINFO/OPERLOG upload). */
export const QUERY_USERS_COMMAND = 'DATA QUERY USERINFO';

/**
 * `DATA UPDATE USERINFO`: adds or changes a user on the terminal (the roster onto the terminals).
 * Card is always written (empty = no card), so that a card taken away is taken away on the terminal too.
 */
export function updateUserCommand(u: { pin: string; name: string; card?: string; privilege?: number }): string {
  const clean = (s: string) => s.replace(/[\t\r\n]/g, ' ');
  return `DATA UPDATE USERINFO PIN=${clean(u.pin)}\tName=${clean(u.name)}\tCard=${clean(u.card ?? '')}\tPri=${u.privilege ?? 0}`;
}

/** `DATA DELETE USERINFO`: removes a user from the terminal. */
export function deleteUserCommand(pin: string): string {
  return `DATA DELETE USERINFO PIN=${pin.replace(/[\t\r\n]/g, ' ')}`;
}

/** Commands that restart the terminal: nothing is sent after them in the same answer, and they are never resent. */
const RESTARTS = /^(REBOOT|RESTART)\b/;
/** Commands that erase data on the terminal: never sent twice. */
const DESTRUCTIVE = /^(CLEAR|DATA DELETE (?!USERINFO)|ENROLL_)/;

export const isLastInAnswer = (command: string): boolean => RESTARTS.test(command);

/**
 * A command handed out but never confirmed is sent again after a while when doing it twice is
 * harmless (INFO, CHECK, LOG, DATA UPDATE/QUERY, DATA DELETE USERINFO), never when it restarts
 * or erases.
 */
export const mayResend = (command: string): boolean => !RESTARTS.test(command) && !DESTRUCTIVE.test(command);

/** What a confirmed command changes in the users kept for its terminal. */
export function userChangeOf(command: string): PushUserChange | undefined {
  const update = /^DATA UPDATE USERINFO (.*)$/s.exec(command);
  if (update) {
    const u = parseUserFields(update[1]!);
    return 'problem' in u ? undefined : { upsert: u };
  }
  const del = /^DATA DELETE USERINFO PIN=([^\t]*)/.exec(command);
  return del ? { remove: del[1]!.trim() } : undefined;
}
