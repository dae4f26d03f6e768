/**
 * The punch state a terminal records with a punch (which key the person pressed: check-in,
 * break-out...), as the journal keeps it: one numbering for every kind of terminal, ZKTeco's
 * (docs/direction.md). ZK pull records and push ATTLOG lines carry it as it is; the sources turn
 * Hikvision's `attendanceStatus` names and Security PUSH's `inoutstatus` into it on the way in.
 *
 * A leaf: the config (to check `directionStates`), the sources and src/punch/direction.ts read it.
 */

/** ZKTeco's states (zk-protocol.md A5, adms-push.md B.1): 255 is "no state" on many firmwares. */
export const STATE_NAMES: ReadonlyMap<number, string> = new Map([
  [0, 'check-in'],
  [1, 'check-out'],
  [2, 'break-out'],
  [3, 'break-in'],
  [4, 'overtime-in'],
  [5, 'overtime-out'],
  [255, 'undefined'],
]);

/**
 * Hikvision's `attendanceStatus` values (hikvision-isapi.md) as the state they are kept as.
 * `undefined` (and a missing status) is kept as no state at all.
 */
export const ATTENDANCE_STATUS_STATES: ReadonlyMap<string, number> = new Map([
  ['checkIn', 0],
  ['checkOut', 1],
  ['breakOut', 2],
  ['breakIn', 3],
  ['overtimeIn', 4],
  ['overtimeOut', 5],
]);

const BY_LOWER_STATUS = new Map([...ATTENDANCE_STATUS_STATES].map(([k, v]) => [k.toLowerCase(), v]));

/** A Hikvision `attendanceStatus` (any letter case, as firmwares differ) as the state kept, or null. */
export function attendanceStatusState(attendanceStatus: unknown): number | null {
  return typeof attendanceStatus === 'string' ? (BY_LOWER_STATUS.get(attendanceStatus.toLowerCase()) ?? null) : null;
}

/**
 * Security PUSH's `inoutstatus` (rtlog) as the state kept. The access-control protocols number
 * the passage 0 entry, 1 exit, 2 none (ZKTeco's PullSDK event table; pyzkaccess's
 * PassageDirection reads it the same way): entry and exit are kept as check-in and check-out,
 * "none" as 255 (no state), so that it never reads as ZKTeco's 2, break-out. Any other value is
 * kept as sent, for a terminal's `directionStates` to name.
 */
export function inoutStatusState(inoutstatus: number | null): number | null {
  return inoutstatus === 2 ? 255 : inoutstatus;
}

/** The state as words for people ("check-out"; "state 9" for one without a name; '' for none recorded). */
export function stateLabel(state: number | null | undefined): string {
  if (state === null || state === undefined) return '';
  return STATE_NAMES.get(state) ?? `state ${state}`;
}
