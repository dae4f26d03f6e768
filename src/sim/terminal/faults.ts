/**
 * Fault switches: defaults, validation, and the "drop a reply" decision shared by
 * the TCP and UDP transports.
 */
import type { TerminalFaults } from './types.js';

export const DEFAULT_FAULTS: TerminalFaults = {
  dropReplyTo: [],
  dropReplyOnce: false,
  splitPackets: null,
  pacingMs: 0,
  separateTrailingAck: false,
  reorderDatagrams: false,
  closeAfterExit: false,
  maxSessions: null,
  slowLinkBytesPerSecond: null,
  disconnectMidTransferAfterBytes: null,
  errorOnDataWrrq: false,
  failWriteAfter: null,
  failWriteMode: 'disconnect',
  recordCountOffset: 0,
  doorPunchAfterCounts: null,
};

function positiveOrNull(v: number | null | undefined, what: string, min = 1): number | null {
  if (v === null || v === undefined) return null;
  if (!Number.isInteger(v) || v < min) throw new RangeError(`fault ${what} must be an integer >= ${min} or null: ${v}`);
  return v;
}

/** Validates a partial update (throws RangeError) and returns only the keys it sets. */
export function checkFaults(f: Partial<TerminalFaults>): Partial<TerminalFaults> {
  const out: Partial<TerminalFaults> = { ...f };
  if (f.dropReplyTo !== undefined) {
    if (!Array.isArray(f.dropReplyTo) || f.dropReplyTo.some((c) => !Number.isInteger(c) || c < 0 || c > 0xffff)) {
      throw new RangeError('fault dropReplyTo must be a list of command codes 0-65535');
    }
    out.dropReplyTo = [...f.dropReplyTo];
  }
  if (f.pacingMs !== undefined && (!Number.isFinite(f.pacingMs) || f.pacingMs < 0)) {
    throw new RangeError(`fault pacingMs must be >= 0: ${f.pacingMs}`);
  }
  if ('splitPackets' in f) out.splitPackets = positiveOrNull(f.splitPackets, 'splitPackets');
  if ('maxSessions' in f) out.maxSessions = positiveOrNull(f.maxSessions, 'maxSessions', 0);
  if ('slowLinkBytesPerSecond' in f)
    out.slowLinkBytesPerSecond = positiveOrNull(f.slowLinkBytesPerSecond, 'slowLinkBytesPerSecond');
  if ('disconnectMidTransferAfterBytes' in f) {
    out.disconnectMidTransferAfterBytes = positiveOrNull(
      f.disconnectMidTransferAfterBytes,
      'disconnectMidTransferAfterBytes',
      0,
    );
  }
  if ('failWriteAfter' in f) out.failWriteAfter = positiveOrNull(f.failWriteAfter, 'failWriteAfter', 0);
  if (f.failWriteMode !== undefined && f.failWriteMode !== 'disconnect' && f.failWriteMode !== 'error') {
    throw new RangeError(`fault failWriteMode must be 'disconnect' or 'error': ${String(f.failWriteMode)}`);
  }
  if (f.recordCountOffset !== undefined && !Number.isInteger(f.recordCountOffset)) {
    throw new RangeError(`fault recordCountOffset must be an integer: ${String(f.recordCountOffset)}`);
  }
  if ('doorPunchAfterCounts' in f)
    out.doorPunchAfterCounts = positiveOrNull(f.doorPunchAfterCounts, 'doorPunchAfterCounts', 0);
  return out;
}

/** Live fault settings plus the "already dropped once" memory. */
export class FaultSwitches {
  current: TerminalFaults;
  private droppedOnce = false;
  /** User writes that went through since failWriteAfter was set. */
  private writesSinceArmed = 0;

  constructor(initial: Partial<TerminalFaults> = {}) {
    this.current = { ...DEFAULT_FAULTS, ...checkFaults(initial) };
  }

  update(f: Partial<TerminalFaults>): void {
    const checked = checkFaults(f);
    this.current = { ...this.current, ...checked };
    // A new drop rule starts fresh: its first match is dropped again.
    if (checked.dropReplyTo !== undefined || checked.dropReplyOnce !== undefined) this.droppedOnce = false;
    if ('failWriteAfter' in checked) this.writesSinceArmed = 0;
  }

  /** Called for every GET_FREE_SIZES answer: true when someone punches at the door right after it (once). */
  shouldPunchAtDoor(): boolean {
    const n = this.current.doorPunchAfterCounts;
    if (n === null) return false;
    this.current = { ...this.current, doorPunchAfterCounts: n === 0 ? null : n - 1 };
    return n === 0;
  }

  /** Called for every user write: true when this one must fail (then the switch is off again). */
  shouldFailWrite(): boolean {
    const after = this.current.failWriteAfter;
    if (after === null) return false;
    if (this.writesSinceArmed < after) {
      this.writesSinceArmed += 1;
      return false;
    }
    this.current = { ...this.current, failWriteAfter: null };
    this.writesSinceArmed = 0;
    return true;
  }

  /** True when the reply to `command` must be swallowed (and remembers a one-shot drop). */
  shouldDropReply(command: number): boolean {
    const f = this.current;
    if (!f.dropReplyTo.includes(command)) return false;
    if (!f.dropReplyOnce) return true;
    if (this.droppedOnce) return false;
    this.droppedOnce = true;
    return true;
  }
}
