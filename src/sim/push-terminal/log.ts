import { wallClockAt } from '../../punch.js';
import { seededRandom } from '../../util/seeded-random.js';
import type { PushSimRecord, PushSimUser } from './types.js';

const NAMES = ['Ana', 'Ben', 'Chen', 'Dara', 'Eli', 'Femi', 'Gita', 'Hugo', 'Ines', 'Jon', 'Kofi', 'Lena'];

export function generatePushUsers(n: number, seed = 1): PushSimUser[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => ({
    pin: String(1001 + i),
    name: `${NAMES[Math.floor(rnd() * NAMES.length)] ?? 'User'} ${1001 + i}`,
    privilege: 0,
    card: '',
  }));
}

/** `YYYY-MM-DD HH:mm:ss` plus `seconds`, as a zone-less calendar (the terminal's wall clock). */
function addSeconds(wall: string, seconds: number): string {
  const ms = Date.parse(`${wall.replace(' ', 'T')}Z`) + seconds * 1000;
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * The terminal's attendance log: records numbered 1, 2, ... in the order they were made. The
 * number is also the stamp: an upload ending with record n carries `Stamp=n`.
 */
export class AttendanceLog {
  private readonly list: PushSimRecord[] = [];
  private readonly rnd: () => number;
  private readonly sequenceStart: string;

  constructor(
    private readonly users: () => PushSimUser[],
    private readonly opts: { timeMode: 'clock' | 'sequence'; sequenceStart?: string; timezone?: string; seed: number },
    private readonly now: () => number,
  ) {
    this.rnd = seededRandom(opts.seed + 7);
    this.sequenceStart = opts.sequenceStart ?? wallClockAt(now() - 30 * 86_400_000, opts.timezone);
  }

  /** Adds `n` records of the past, 7 s apart, ending a minute ago (a log the terminal had before). */
  addPast(n: number): void {
    if (this.opts.timeMode === 'sequence') {
      for (let i = 0; i < n; i++) this.add();
      return;
    }
    const start = wallClockAt(this.now() - (n * 7 + 60) * 1000, this.opts.timezone);
    for (let i = 0; i < n; i++) this.add(undefined, addSeconds(start, i * 7));
  }

  add(pin?: string, at?: string): PushSimRecord {
    const users = this.users();
    const seq = this.list.length + 1;
    const who = pin ?? users[Math.floor(this.rnd() * users.length)]?.pin ?? '1';
    const logTime =
      at ??
      (this.opts.timeMode === 'sequence'
        ? addSeconds(this.sequenceStart, seq)
        : wallClockAt(this.now(), this.opts.timezone));
    const r: PushSimRecord = { seq, pin: who, logTime, status: this.rnd() < 0.5 ? 0 : 1, verify: 1 };
    this.list.push(r);
    return r;
  }

  all(): PushSimRecord[] {
    return [...this.list];
  }

  /** Records after stamp `after`, at most `max`. */
  after(after: number, max: number): PushSimRecord[] {
    return this.list.slice(Math.max(0, after), Math.max(0, after) + max);
  }

  get size(): number {
    return this.list.length;
  }

  between(from: string, to: string): PushSimRecord[] {
    return this.list.filter((r) => r.logTime >= from && r.logTime <= to);
  }
}

/** One ATTLOG line as push firmware writes it (fields as in captured uploads). */
export const attlogLine = (r: PushSimRecord) => `${r.pin}\t${r.logTime}\t${r.status}\t${r.verify}\t0\t\t\t0\t0\t`;

/** Lines a broken firmware or a noisy link could produce. */
export const MALFORMED_LINES = [
  '1001 2026-11-22 08:00:00 0 1',
  '1001\tnot-a-date\t0\t1',
  '\t2026-11-22 08:00:00\t0\t1',
  '10\u000101\t2026-11-22 08:00:00\t0\t1',
  '1001\t2026-02-30 08:00:00\t0\t1',
];
