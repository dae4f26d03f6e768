/** What a serial source reports about itself (status command, status file, tests). */
export interface SerialSourceStatus {
  name: string;
  path: string;
  online: boolean;
  /** When the device was last opened (epoch ms). */
  openedAt: number | null;
  /** When opening it last failed (epoch ms): a device that never opened was still tried. */
  lastOpenFailedAt: number | null;
  /** Since when the device has been closed or unreachable (epoch ms); null when online. */
  offlineSince: number | null;
  lastLineAt: number | null;
  /** Non-blank lines received: accepted + malformed + pendingPunches. */
  lines: number;
  /** Lines that became punches and are in the journal (new, duplicate or quarantined). */
  accepted: number;
  /** Of `accepted`: already in the journal. */
  duplicates: number;
  /** Of `accepted`: held back by the journal because their time is implausible. */
  quarantined: number;
  /** Line noise, lines that do not fit the format, over-long and truncated lines. */
  malformed: number;
  /** Keypad keys received (a bare byte or a short frame): never part of a code, never a punch. */
  keypadKeys: number;
  /** Card frames repeating the card still on the reader (within `cardRepeatMs`): one read, not punches. */
  cardRepeats: number;
  /** Of `malformed`: card frames whose checksum was wrong (RDM6300), skipped. */
  badChecksums: number;
  /** Of `malformed`: reads dropped for growing past the bound without an end. */
  overflows: number;
  /** Bytes received since the last read that made a card, key or line (0 after one did). */
  unframedBytes: number;
  /** When the first of `unframedBytes` arrived (epoch ms); null when there are none. */
  unframedSince: number | null;
  /** When the last of `unframedBytes` arrived (epoch ms): they keep arriving, or came in one burst. */
  unframedLastAt: number | null;
  /** Reads dropped for their length since the last read that made a card, key or line. */
  unframedOverflows: number;
  /**
   * Bytes keep arriving that make no read (for `noFrameAlertSeconds`), or reads grew past the
   * bound: the cause (beginning with the terminal's name) and the framing to try. Null when not.
   */
  framingProblem: { cause: string; fix: string } | null;
  /** Most recent first: card numbers not in the code map (journalled with the `card:` prefix). */
  unknownCards: string[];
  /** Punches journalled for unknown cards. */
  unknownCardPunches: number;
  /** Most recent last: periods the device was away after having been open. `to` null = still away. */
  gaps: { from: number; to: number | null }[];
  /** Successful reopenings after a disconnect. */
  reconnects: number;
  /** When the next open attempt is due, while offline. */
  nextAttemptAt: number | null;
  /** Punches read but not yet in the journal (the journal is failing). */
  pendingPunches: number;
  lastError: string | null;
}

const RECENT_UNKNOWN = 20;
const RECENT_GAPS = 20;

/** The counters behind SerialSourceStatus; the source calls the `mark*` methods as things happen. */
export class SerialStats {
  private s: SerialSourceStatus;

  constructor(name: string, path: string) {
    this.s = {
      name,
      path,
      online: false,
      openedAt: null,
      lastOpenFailedAt: null,
      offlineSince: null,
      lastLineAt: null,
      lines: 0,
      accepted: 0,
      duplicates: 0,
      quarantined: 0,
      malformed: 0,
      keypadKeys: 0,
      cardRepeats: 0,
      badChecksums: 0,
      overflows: 0,
      unframedBytes: 0,
      unframedSince: null,
      unframedLastAt: null,
      unframedOverflows: 0,
      framingProblem: null,
      unknownCards: [],
      unknownCardPunches: 0,
      gaps: [],
      reconnects: 0,
      nextAttemptAt: null,
      pendingPunches: 0,
      lastError: null,
    };
  }

  snapshot(pendingPunches: number): SerialSourceStatus {
    return {
      ...this.s,
      pendingPunches,
      unknownCards: [...this.s.unknownCards],
      gaps: this.s.gaps.map((g) => ({ ...g })),
    };
  }

  markOpened(at: number): void {
    const gap = this.s.gaps.at(-1);
    if (gap && gap.to === null) {
      gap.to = at;
      this.s.reconnects++;
    }
    this.s.online = true;
    this.s.openedAt = at;
    this.s.offlineSince = null;
    this.s.nextAttemptAt = null;
    // Open again: the unplug or open failure is over (the status showed it for a minute after,
    // found by a new-user trial); the gaps keep its history.
    this.s.lastError = null;
  }

  /** The device went away while open: a gap starts. */
  markLost(at: number, error: string): void {
    if (this.s.online) {
      this.s.gaps.push({ from: at, to: null });
      if (this.s.gaps.length > RECENT_GAPS) this.s.gaps.shift();
    }
    this.s.online = false;
    this.offlineFrom(at);
    this.s.lastError = error;
  }

  markOpenFailed(at: number, error: string, nextAttemptAt: number | null): void {
    this.s.lastOpenFailedAt = at;
    this.offlineFrom(at);
    this.s.lastError = error;
    this.s.nextAttemptAt = nextAttemptAt;
  }

  /**
   * Offline since the first failure, but never after the latest: a box clock stepped back left
   * that time ahead, and the "cannot be read" alert, which comes once it is minutes old, stayed
   * away for the step's length while the reader was gone (found by an adversarial trial).
   */
  private offlineFrom(at: number): void {
    this.s.offlineSince = Math.min(this.s.offlineSince ?? at, at);
  }

  markNextAttempt(at: number | null): void {
    this.s.nextAttemptAt = at;
  }

  markStopped(at: number): void {
    this.s.online = false;
    this.offlineFrom(at);
    this.s.nextAttemptAt = null;
  }

  markLine(at: number): void {
    this.s.lines++;
    this.s.lastLineAt = at;
  }

  markMalformed(): void {
    this.s.malformed++;
  }

  markKey(): void {
    this.s.keypadKeys++;
  }

  markCardRepeat(): void {
    this.s.cardRepeats++;
  }

  markBadChecksum(): void {
    this.s.badChecksums++;
  }

  markOverflow(): void {
    this.s.overflows++;
    this.s.unframedOverflows++;
  }

  /** Bytes came in; `framed`: they completed a card, key or line. */
  markBytes(at: number, bytes: number, framed: boolean): void {
    if (framed) {
      this.s.unframedBytes = 0;
      this.s.unframedSince = null;
      this.s.unframedLastAt = null;
      this.s.unframedOverflows = 0;
      return;
    }
    if (bytes === 0) return;
    this.s.unframedBytes += bytes;
    this.s.unframedSince ??= at;
    this.s.unframedLastAt = at;
  }

  markJournalled(punches: number, r: { duplicates: number; quarantined: number }): void {
    this.s.accepted += punches;
    this.s.duplicates += r.duplicates;
    this.s.quarantined += r.quarantined;
  }

  markUnknownCard(card: string): void {
    this.s.unknownCardPunches++;
    this.s.unknownCards = [card, ...this.s.unknownCards.filter((c) => c !== card)].slice(0, RECENT_UNKNOWN);
  }

  markError(error: string | null): void {
    this.s.lastError = error;
  }
}
