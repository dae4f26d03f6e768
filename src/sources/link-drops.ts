import type { Logger } from '../util/logger.js';
import type { NoteWords } from './device-notes.js';

/**
 * How every device link punchgate keeps open (a ZK real-time connection, a Hikvision alert
 * stream, a Dahua event stream) says that it keeps dropping soon after it opens: once in the log
 * and in the status (a note) after KEEPS_DROPPING_AFTER such drops in a row, then at most every
 * SAY_AGAIN_MS, and that it is over once a link stays up. Polls read every punch meanwhile, so
 * this is no loss; but a real-time path that silently never works, behind a "No alerts", is
 * what a site admin must be told (found by an adversarial trial, first for ZK).
 */

/** Links dying young in a row before the link is said to keep dropping (one may be a blip). */
export const KEEPS_DROPPING_AFTER = 3;
/** A link that keeps dropping is said again (log and status note) at most this often. */
export const SAY_AGAIN_MS = 10 * 60_000;

export interface LinkDropsOptions {
  terminal: string;
  /** The link in words, with its possessive: "real-time connection", "alert stream", "event stream". */
  link: string;
  /** What the terminal's other path does meanwhile, e.g. "polls read every punch meanwhile". */
  meanwhile: string;
  log: Logger;
  now: () => number;
  /** Writes the status note (null: clears it; also a note a previous run of the daemon left). */
  note: (words: NoteWords | null) => void;
}

export class LinkDrops {
  private drops = 0;
  private saidAt: number | undefined;

  constructor(private readonly o: LinkDropsOptions) {}

  /** Links that died young in a row (since the last healthy one). */
  get count(): number {
    return this.drops;
  }

  /** A link went down before it was healthy; `nextInMs` is the wait before the next try. */
  diedYoung(nextInMs: number): void {
    this.drops++;
    if (this.drops < KEEPS_DROPPING_AFTER) return;
    const now = this.o.now();
    const at = this.saidAt;
    // A box clock set back is no reason to stay silent for the hours it went back.
    if (at !== undefined && now >= at && now - at < SAY_AGAIN_MS) return;
    this.saidAt = now;
    const words: NoteWords = {
      cause: `its ${this.o.link} keeps dropping soon after it opens (${this.drops} times in a row): punchgate reconnects less and less often (next in ${Math.round(nextInMs / 1000)} s, at most a minute apart), and ${this.o.meanwhile}`,
      fix: "check what sits between this box and the terminal (a proxy, a firewall or NAT that cuts TCP connections) and the terminal's network settings; set realtime: false for it if this goes on",
    };
    this.o.log.warn({ drops: this.drops, retryInMs: nextInMs }, `terminal ${this.o.terminal}: ${words.cause}`);
    this.o.note(words);
  }

  /** A link stayed up long enough: any trouble is over (said if it had been said). */
  healthy(): void {
    if (this.saidAt !== undefined)
      this.o.log.info(
        { drops: this.drops },
        `terminal ${this.o.terminal}: the ${this.o.link} stays up again (it dropped ${this.drops} times soon after opening)`,
      );
    this.o.note(null);
    this.drops = 0;
    this.saidAt = undefined;
  }
}
