import type { Logger } from '../../util/logger.js';
import { KNOWN_PASSES, type AccessEvent } from './events.js';

/** The whole numbers from `from` to `to`, both in. */
const span = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * The major-5 (MAJOR_EVENT) minors of the HCNetSDK tables that are no pass: failures and
 * time-outs of each verification mode, door, lock and button events, alarms, relays and the rest
 * (MINOR_CARD_AND_PSW_FAIL 0x03 ... MINOR_VERIFY_MODE_MISMATCH 0x9b, as the SDK's headers and
 * their ports publish them, e.g. CHCNetSDK.cs of Hikvision's device network SDK samples: defined
 * codes 0x01-0x69, 0x70-0x78, 0x82-0x8f, 0x97-0x9b), without the passes (KNOWN_PASSES). With the
 * passes, every code of those tables: a minor in neither is one of a firmware newer than them.
 */
export const KNOWN_NON_PASSES: ReadonlySet<number> = new Set(
  [...span(0x01, 0x69), ...span(0x70, 0x78), ...span(0x82, 0x8f), ...span(0x97, 0x9b)].filter(
    (m) => !KNOWN_PASSES.has(m),
  ),
);

/**
 * A major-5 event of a person (it carries an employee number) whose minor is in neither the
 * terminal's `minors`, nor the known passes, nor the known non-passes: perhaps the pass of a
 * verification mode added by a newer firmware, which is then no punch.
 */
export function unknownMinor(e: AccessEvent, minors: ReadonlySet<number>): boolean {
  return (
    !e.unreadable &&
    e.major === 5 &&
    e.employeeNo !== '' &&
    !minors.has(e.minor) &&
    !KNOWN_PASSES.has(e.minor) &&
    !KNOWN_NON_PASSES.has(e.minor)
  );
}

/**
 * Says each such minor once per terminal (a warning: the code, the terminal and the config key
 * that makes it a pass), whichever link brought it first (the poll, the alert stream, HTTP
 * Listening): a busy door writes no line a pass, and no such event goes without a word.
 */
export class UnknownMinorLog {
  private readonly said = new Set<number>();

  constructor(
    private readonly terminal: string,
    private readonly minors: ReadonlySet<number>,
  ) {}

  note(e: AccessEvent, log: Logger): void {
    if (this.said.has(e.minor) || !unknownMinor(e, this.minors)) return;
    this.said.add(e.minor);
    const list = [...this.minors, e.minor].join(', ');
    log.warn(
      { terminal: this.terminal, major: 5, minor: e.minor },
      `terminal ${this.terminal}: events 5/${e.minor} carry an employee number, and ${e.minor} is neither an authentication pass ` +
        'nor a door event or failure punchgate knows (a firmware newer than its tables?): they are not punches. ' +
        `If they are people let through (a verification mode of that firmware), add ${e.minor} to the \`minors\` of terminal ` +
        `${this.terminal} in the config (minors: [${list}]), and reload; said once per code`,
    );
  }
}
