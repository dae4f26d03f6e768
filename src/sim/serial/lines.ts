import { utcWallClock, wallClockAt } from '../../punch.js';
import type { Clock } from '../../util/clock.js';
import { seededRandom } from '../../util/seeded-random.js';

/**
 * What the serial simulator prints.
 *
 * format regex: `CODE,YYYY-MM-DD HH:mm:ss` (e.g. `1042,2026-11-22 08:00:01`), which the
 * default pattern of a `format: regex` terminal reads. format card: a 10-digit card number
 * (e.g. `0004521234`). Noise lines are garbage that no format accepts.
 */

export type SimFormat = 'regex' | 'card';

export interface SimLineOptions {
  format: SimFormat;
  /** Codes (regex) or card numbers (card) to cycle through; defaults below. */
  codes?: readonly string[];
  /** Known total: regex times then run from `count` seconds ago up to now, one second apart. */
  count?: number;
  /** Epoch ms of the first regex time (overrides the count rule). */
  startAt?: number;
  /** Zone of the printed times (default the box's). */
  timezone?: string;
  /** Chance (0-1) of a noise line after each punch line. */
  noise?: number;
  seed?: number;
  clock: Clock;
}

export const DEFAULT_REGEX_CODES: readonly string[] = Array.from({ length: 20 }, (_, i) => String(1001 + i));
const FIRST_CARD = 4_521_000;

export class SimLines {
  private readonly random: () => number;
  private index = 0;
  private lastWall: number | null = null;
  /** First regex time as zone-less calendar ms (Date.UTC of the wall clock), or null for an open-ended run. */
  private readonly startWall: number | null;

  constructor(private readonly opts: SimLineOptions) {
    this.random = seededRandom(opts.seed ?? 1);
    const count = opts.count;
    const startAt =
      opts.startAt ?? (count !== undefined && Number.isFinite(count) ? opts.clock.now() - count * 1000 : null);
    this.startWall = startAt === null ? null : wallToCalendarMs(wallClockAt(startAt, opts.timezone));
  }

  /** The next punch line (no line ending). Regex lines never repeat a code and time. */
  punch(): string {
    const i = this.index++;
    const codes = this.opts.codes;
    if (this.opts.format === 'card') {
      return codes && codes.length > 0 ? (codes[i % codes.length] as string) : String(FIRST_CARD + i).padStart(10, '0');
    }
    const list = codes && codes.length > 0 ? codes : DEFAULT_REGEX_CODES;
    return `${list[i % list.length] as string},${utcWallClock(this.nextWall(i))}`;
  }

  /** A noise line to send after the punch, or null (chance `noise`). */
  noise(): string | null {
    const rate = this.opts.noise ?? 0;
    if (rate <= 0 || this.random() >= rate) return null;
    // Now and then a runaway line longer than any reader keeps.
    const length = this.random() < 0.05 ? 2000 + Math.floor(this.random() * 500) : 1 + Math.floor(this.random() * 40);
    let s = '';
    for (let k = 0; k < length; k++) {
      // Printable ASCII and high bytes; never a line ending.
      const b = this.random() < 0.7 ? 0x21 + Math.floor(this.random() * 94) : 0x80 + Math.floor(this.random() * 128);
      s += String.fromCharCode(b);
    }
    // A character no card number or code,time line has: the line can never pass as a punch.
    const pos = Math.floor(this.random() * (s.length + 1));
    return `${s.slice(0, pos)}~\u00ff${s.slice(pos)}`;
  }

  /** Wall clock of line i as calendar ms: one second apart, never repeating. */
  private nextWall(i: number): number {
    if (this.startWall !== null) return this.startWall + i * 1000;
    // Open-ended run: the current wall clock, but never the same second twice.
    const now = wallToCalendarMs(wallClockAt(this.opts.clock.now(), this.opts.timezone));
    this.lastWall = this.lastWall === null ? now : Math.max(now, this.lastWall + 1000);
    return this.lastWall;
  }
}

/*
 * Wall-clock arithmetic without a zone: Date.UTC only does calendar sums here. It keeps
 * a burst of 10,000 lines cheap (Intl formatting costs ~0.3 ms a call).
 */
function wallToCalendarMs(wall: string): number {
  const [y, mo, d, h, mi, s] = wall.split(/[- :]/).map(Number) as [number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s);
}
