import type { PushProtocol, PushUserChange } from '../../journal/types.js';
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

/**
 * User commands differ by protocol: attendance-protocol firmware takes `USERINFO` with `PIN=`,
 * `Card=`, `Pri=`; Security PUSH firmware (PushSDK 3.x, `DeviceType=acc`) takes the `user` table
 * with `Pin=`, `CardNo=`, `Privilege=`, and answers the other form `Return=-1002` (unsupported).
 * Each terminal gets the form of the protocol it registered with (attendance until it says).
 */

/** Asks the terminal for every user it holds: a USERINFO/OPERLOG upload, or the `user` table. */
export function queryUsersCommand(protocol: PushProtocol): string {
  return protocol === 'security' ? 'DATA QUERY tablename=user,fielddesc=*,filter=*' : 'DATA QUERY USERINFO';
}

/** Whether a command asks the terminal for its users (either protocol's form). */
export const isUsersQuery = (command: string): boolean => /^DATA QUERY (USERINFO$|tablename=user,)/.test(command);

const clean = (s: string) => s.replace(/[\t\r\n]/g, ' ');

/**
 * Adds or changes a user on the terminal (the roster onto the terminals). The card is always
 * written (empty = no card), so that a card taken away is taken away on the terminal too. A
 * password is never sent: the one set on the terminal stays.
 */
export function updateUserCommand(
  u: { pin: string; name: string; card?: string; privilege?: number },
  protocol: PushProtocol = 'attendance',
): string {
  const [pin, name, card, pri] = [clean(u.pin), clean(u.name), clean(u.card ?? ''), u.privilege ?? 0];
  return protocol === 'security'
    ? `DATA UPDATE user CardNo=${card}\tPin=${pin}\tName=${name}\tPrivilege=${pri}`
    : `DATA UPDATE USERINFO PIN=${pin}\tName=${name}\tCard=${card}\tPri=${pri}`;
}

/**
 * Security PUSH: a user passes the door only with an authorisation (time zone 1 is "always" in
 * the vendor's document; door 1 the terminal's own). Queued after each `DATA UPDATE user`, so
 * that a new employee's face or card is accepted, not logged as a refusal.
 */
export function authorizeUserCommand(pin: string): string {
  return `DATA UPDATE userauthorize Pin=${clean(pin)}\tAuthorizeTimezoneId=1\tAuthorizeDoorId=1`;
}

/** Removes a user from the terminal. */
export function deleteUserCommand(pin: string, protocol: PushProtocol = 'attendance'): string {
  return protocol === 'security' ? `DATA DELETE user Pin=${clean(pin)}` : `DATA DELETE USERINFO PIN=${clean(pin)}`;
}

/** Commands that restart the terminal: nothing is sent after them in the same answer, and they are never resent. */
const RESTARTS = /^(REBOOT|RESTART)\b/;
/** Commands that erase data on the terminal: never sent twice. */
const DESTRUCTIVE = /^(CLEAR|DATA DELETE (?!USERINFO |user |userauthorize )|ENROLL_)/;

export const isLastInAnswer = (command: string): boolean => RESTARTS.test(command);

/**
 * A command handed out but never confirmed is sent again after a while when doing it twice is
 * harmless (INFO, CHECK, LOG, DATA UPDATE/QUERY, deleting one user), never when it restarts
 * or erases.
 */
export const mayResend = (command: string): boolean => !RESTARTS.test(command) && !DESTRUCTIVE.test(command);

/** What a confirmed command changes in the users kept for its terminal (either protocol's form). */
export function userChangeOf(command: string): PushUserChange | undefined {
  const update = /^DATA UPDATE (?:USERINFO|user) (.*)$/s.exec(command);
  if (update) {
    const u = parseUserFields(update[1]!);
    return 'problem' in u ? undefined : { upsert: u };
  }
  const del = /^DATA DELETE (?:USERINFO PIN|user Pin)=([^\t]*)/.exec(command);
  return del ? { remove: del[1]!.trim() } : undefined;
}
