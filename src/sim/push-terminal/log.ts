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

  /**
   * Adds `n` records of the past, 7 s apart, ending a minute ago (a log the terminal had before).
   * The seed also picks the second of the 7 the grid falls on: two simulators of seeds 1 to 7 never
   * punch the same code at the same second, which an HRMS would count once (docs/simulators.md).
   */
  addPast(n: number): void {
    if (this.opts.timeMode === 'sequence') {
      for (let i = 0; i < n; i++) this.add();
      return;
    }
    const phase = (((this.opts.seed % 7) + 7) % 7) + 1;
    const start = wallClockAt(this.now() - (n * 7 + 60 + phase) * 1000, this.opts.timezone);
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
    const face = this.rnd() < 0.5;
    const r: PushSimRecord = {
      seq,
      pin: who,
      logTime,
      status: this.rnd() < 0.5 ? 0 : 1,
      verify: face ? 15 : 1,
      // As captured: SpeedFace-V5L face passes as event 3, a SpeedFace-V3L fingerprint pass as event 0.
      event: face ? 3 : 0,
      kind: 'pass',
    };
    this.list.push(r);
    return r;
  }

  /** An access event that is not a punch: an unregistered card, a refusal of a user, a door opened. */
  addOther(): PushSimRecord {
    const users = this.users();
    const pick = Math.floor(this.rnd() * 3);
    const pin = pick === 1 ? (users[Math.floor(this.rnd() * users.length)]?.pin ?? '1') : '0';
    const event = [27, 23, 200][pick]!;
    const r: PushSimRecord = {
      seq: this.list.length + 1,
      pin,
      logTime: wallClockAt(this.now(), this.opts.timezone),
      status: 2,
      verify: pick === 2 ? 200 : 4,
      event,
      kind: 'other',
    };
    this.list.push(r);
    return r;
  }

  /** A pass written before the terminal's clock was set (a SenseFace 2A wrote such rows). */
  addClockUnset(): PushSimRecord {
    const users = this.users();
    const r: PushSimRecord = {
      seq: this.list.length + 1,
      pin: users[Math.floor(this.rnd() * users.length)]?.pin ?? '1',
      logTime: CLOCK_UNSET_TIME,
      status: 0,
      verify: 15,
      event: 3,
      kind: 'clock-unset',
    };
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

/** What a SenseFace 2A wrote as the time of its rows before its clock was set. */
export const CLOCK_UNSET_TIME = '1971--10--29 -23:-27:-54';

/**
 * One ATTLOG line as push firmware writes it: 10 fields as in captured uploads (PIN, time,
 * status, verify, work code, two reserved, mask flag, temperature, empty); 8 fields with an
 * empty work code and status 255; or 11 fields (the document's full list) plus a sequence number.
 */
export function attlogLine(r: PushSimRecord, fields: 8 | 10 | 11 = 10): string {
  if (fields === 8) return `${r.pin}\t${r.logTime}\t255\t${r.verify}\t\t0\t0\t0`;
  if (fields === 11) return `${r.pin}\t${r.logTime}\t${r.status}\t${r.verify}\t0\t0\t0\t0\t36.5\t0\t+0000\t${r.seq}`;
  return `${r.pin}\t${r.logTime}\t${r.status}\t${r.verify}\t0\t\t\t0\t0\t`;
}

/** One rtlog line as Security PUSH firmware writes it (fields and order as in captured uploads). */
export const rtlogLine = (r: PushSimRecord) =>
  `time=${r.logTime}\tpin=${r.pin}\tcardno=0\teventaddr=1\tevent=${r.event ?? 0}\tinoutstatus=${r.status}\tverifytype=${r.verify}\tindex=${r.seq}\tsitecode=0\tlinkid=0\tmaskflag=255\ttemperature=255\tconvtemperature=255`;

/** One row of the `user` table (Security PUSH tabledata). */
export const userRow = (u: PushSimUser, uid: number) =>
  `user uid=${uid}\tcardno=${u.card}\tpin=${u.pin}\tpassword=\tgroup=1\tstarttime=0\tendtime=0\tname=${u.name}\tprivilege=${u.privilege}\tdisable=0\tverify=0`;

/** Lines a broken firmware or a noisy link could produce. */
export const MALFORMED_RTLOG_LINES = [
  'time=2026-11-22 08:00:00\tpin=1001\tverifytype=1',
  'pin=1001\tevent=0\tverifytype=1',
  'time=2026-11-22 08:00:00\tpin=10\u000101\tevent=0',
  'garbage without fields',
];

export const MALFORMED_LINES = [
  '1001 2026-11-22 08:00:00 0 1',
  '1001\tnot-a-date\t0\t1',
  '\t2026-11-22 08:00:00\t0\t1',
  '10\u000101\t2026-11-22 08:00:00\t0\t1',
  '1001\t2026-02-30 08:00:00\t0\t1',
];
