/**
 * Which Security PUSH access events are punches. The vendor's event table (the same codes in
 * ZKTeco's Security PUSH and PULL SDK documents, "Description of Event Types and Code") splits
 * events into normal events (a person verified and the door opened), abnormal ones (refusals)
 * and door, alarm and device events. Captured traffic: SpeedFace-V5L units report face and
 * fingerprint passes as `event=3`, a SpeedFace-V3L a fingerprint pass as `event=0`, and
 * `pin=0 event=27` is an unregistered card.
 *
 * The normal events from 200 on are not all door states: the Security PUSH document's event
 * appendix (its Chinese edition, 门禁PUSH通讯协议 附录2 "实时事件描述", as transcribed in public
 * repositories) names 207 password open, 215 first-person open by password, 216 password during
 * the passage-mode time zone, 218 pass by ID card, 222 background verification success (also in
 * the vendor's push demo server's event map) and 232 verification passed: each a person's
 * successful verification, as 0, 1, 2 and 14 to 19 are by card and fingerprint. Counted as door
 * events, such a pass was answered OK and never journalled: the terminal does not send it again.
 */

/**
 * The default: successful verifications of a person. 0 normal punch open, 1 punch during a
 * normal-open time zone, 2 first-card normal open, 3 multi-card open (and face/finger passes
 * on SpeedFace firmware), 14 fingerprint open, 15 multi-card open (fingerprint), 16 fingerprint
 * during normal open, 17 card plus fingerprint open, 18 and 19 first-card normal open
 * (fingerprint; card plus fingerprint), 203 multi-card open (card plus fingerprint), 207
 * password open, 215 first-card open (password), 216 password during normal open, 218 ID card
 * pass, 222 background verification success, 232 verification passed.
 */
export const DEFAULT_PUNCH_EVENTS: readonly number[] = [
  0, 1, 2, 3, 14, 15, 16, 17, 18, 19, 203, 207, 215, 216, 218, 222, 232,
];

/**
 * The codes from 200 on that are a person's successful verification, never a door or device
 * event: the passes above, and 208 superuser opens the doors, whose worth as attendance is the
 * admin's to say (not a punch by default; with a person, such a row is kept raw until the admin
 * lists it in punchEvents). A terminal whose punchEvents leave one of them out has it kept raw
 * too, as any event of a person not known as a pass.
 */
const PERSON_FROM_200: ReadonlySet<number> = new Set([203, 207, 208, 215, 216, 218, 222, 232]);

/**
 * Codes the vendor's table names that are never a person's pass: 4 emergency password, 5 door
 * opened by its time zone, 6-13 linkage, alarms, remote and auxiliary operations; 20-48 refusals
 * (too short interval, illegal time zone, access denied, anti-passback, interlock, multi-card
 * steps, unregistered card or fingerprint, expired, wrong password, ...); 100-103 tamper and
 * duress alarms, opened accidentally; 200-255 door states, exit button, device start, auxiliary
 * inputs, door and alarm status (255), but for the verifications of a person among them.
 */
export function knownNotPunch(event: number): boolean {
  return (
    (event >= 4 && event <= 13) ||
    (event >= 20 && event <= 48) ||
    (event >= 100 && event <= 103) ||
    (event >= 200 && event <= 255 && !PERSON_FROM_200.has(event))
  );
}

/** What one rtlog row is, for a terminal whose punch events are `punchEvents`. */
export type RtlogKind =
  /** A person's pass: journalled as a punch. */
  | 'punch'
  /** No person (pin empty or 0), or an event the vendor's table says is not a pass: counted. */
  | 'not-punch'
  /** A person, and a code the vendor's table does not name: kept raw (it may be a pass of newer firmware). */
  | 'unknown';

export function classifyRtlog(row: { pin: string; event: number }, punchEvents: ReadonlySet<number>): RtlogKind {
  if (row.pin === '' || row.pin === '0') return 'not-punch';
  if (punchEvents.has(row.event)) return 'punch';
  return knownNotPunch(row.event) ? 'not-punch' : 'unknown';
}

const sets = new WeakMap<readonly number[], ReadonlySet<number>>();

/** The punch events of a terminal's config (`punchEvents`), or the default. */
export function punchEventsOf(cfg: { punchEvents?: readonly number[] }): ReadonlySet<number> {
  const list = cfg.punchEvents ?? DEFAULT_PUNCH_EVENTS;
  let set = sets.get(list);
  if (!set) {
    set = new Set(list);
    sets.set(list, set);
  }
  return set;
}
