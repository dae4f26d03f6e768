import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import type { OutboundPunch, PunchState } from '../../src/journal/types.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * Model-based test: random sequences of enqueue, claim, ack, fail, unknown, release,
 * crash-and-reopen and clock moves run against the real journal and a tiny in-memory
 * model in lockstep. After every step the states of all punches must agree.
 */

interface ModelPunch {
  state: PunchState;
  attempts: number;
  from?: 'pending' | 'rejected';
  nextAt?: number;
}
interface Model {
  punches: Map<string, ModelPunch>;
  claimed: string[];
}
interface Real {
  journal: Journal;
  open: () => Journal;
  clock: ReturnType<typeof fakeClock>;
  ids: Map<number, string>;
  claimed: OutboundPunch[];
}

const HOUR = 3_600_000;
const DEAD_AFTER = 4;
const key = (code: string, time: string) => `${code}@${time}`;

function check(m: Model, r: Real): void {
  const rows = r.journal.queries.list();
  expect(rows.length).toBe(m.punches.size);
  for (const row of rows) {
    const mp = m.punches.get(key(row.biometricCode, row.logTime));
    expect(mp, `punch ${row.biometricCode} ${row.logTime} in model`).toBeDefined();
    expect(row.state).toBe(mp!.state);
    expect(row.attempts).toBe(mp!.attempts);
  }
}

class Enqueue implements fc.Command<Model, Real> {
  constructor(readonly items: { code: string; minute: number }[]) {}
  check = () => true;
  run(m: Model, r: Real) {
    const punches = this.items.map((i) => ({
      terminal: 't1',
      biometricCode: i.code,
      logTime: `2026-11-22 0${Math.floor(i.minute / 60)}:${String(i.minute % 60).padStart(2, '0')}:00`,
    }));
    const before = m.punches.size;
    for (const p of punches) {
      const k = key(p.biometricCode, p.logTime);
      if (!m.punches.has(k)) m.punches.set(k, { state: 'pending', attempts: 0 });
    }
    const res = r.journal.ingest(punches);
    expect(res.added).toBe(m.punches.size - before);
    check(m, r);
  }
  toString = () => `enqueue(${this.items.length})`;
}

class Claim implements fc.Command<Model, Real> {
  constructor(readonly limit: number) {}
  check = () => true;
  run(m: Model, r: Real) {
    const now = r.clock.now();
    const due = [...m.punches.entries()].filter(
      ([, p]) => p.state === 'pending' || (p.state === 'rejected' && p.nextAt! <= now),
    );
    const got = r.journal.claim(this.limit);
    expect(got.length).toBe(Math.min(this.limit, due.length));
    for (const g of got) {
      const k = key(g.biometricCode, g.logTime);
      const mp = m.punches.get(k)!;
      expect(['pending', 'rejected']).toContain(mp.state);
      mp.from = mp.state as 'pending' | 'rejected';
      mp.state = 'inflight';
      m.claimed.push(k);
      r.claimed.push(g);
    }
    check(m, r);
  }
  toString = () => `claim(${this.limit})`;
}

class Settle implements fc.Command<Model, Real> {
  constructor(
    readonly kind: 'delivered' | 'duplicate' | 'rejected' | 'unknown' | 'release',
    readonly n: number,
  ) {}
  check = (m: Readonly<Model>) => m.claimed.length > 0;
  run(m: Model, r: Real) {
    const take = r.claimed.splice(0, this.n);
    m.claimed.splice(0, take.length);
    if (this.kind === 'release') r.journal.release(take.map((t) => t.id));
    else
      r.journal.settle(
        take.map((t) =>
          this.kind === 'rejected'
            ? { id: t.id, kind: 'rejected' as const, message: 'no' }
            : { id: t.id, kind: this.kind as 'delivered' },
        ),
      );
    for (const t of take) {
      const mp = m.punches.get(key(t.biometricCode, t.logTime))!;
      if (this.kind === 'delivered' || this.kind === 'duplicate') {
        mp.state = 'delivered';
        mp.attempts++;
      } else if (this.kind === 'rejected') {
        mp.attempts++;
        mp.state = mp.attempts >= DEAD_AFTER ? 'dead' : 'rejected';
        mp.nextAt = r.clock.now() + Math.min(24 * HOUR, HOUR * 2 ** (mp.attempts - 1));
      } else {
        mp.state = mp.from!;
      }
    }
    check(m, r);
  }
  toString = () => `${this.kind}(${this.n})`;
}

class CrashReopen implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real) {
    r.journal.db.close();
    (r.journal as unknown as { lock: { release(): void } }).lock.release();
    r.journal = r.open();
    for (const k of m.claimed) {
      const mp = m.punches.get(k)!;
      mp.state = mp.from!;
    }
    m.claimed = [];
    r.claimed = [];
    check(m, r);
  }
  toString = () => 'crash-reopen';
}

class Advance implements fc.Command<Model, Real> {
  constructor(readonly hours: number) {}
  check = () => true;
  run(_m: Model, r: Real) {
    r.clock.advance(this.hours * HOUR);
  }
  toString = () => `advance(${this.hours}h)`;
}

const commands = [
  fc
    .array(fc.record({ code: fc.constantFrom('1', '2', '3', '4'), minute: fc.integer({ min: 0, max: 300 }) }), {
      minLength: 1,
      maxLength: 8,
    })
    .map((i) => new Enqueue(i)),
  fc.integer({ min: 1, max: 5 }).map((n) => new Claim(n)),
  fc
    .tuple(
      fc.constantFrom('delivered', 'duplicate', 'rejected', 'unknown', 'release' as const),
      fc.integer({ min: 1, max: 4 }),
    )
    .map(([k, n]) => new Settle(k, n)),
  fc.constant(new CrashReopen()),
  fc.integer({ min: 1, max: 30 }).map((h) => new Advance(h)),
];

describe('journal model', () => {
  it('agrees with an in-memory model under random enqueue, claim, ack, fail and crash-reopen', () => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 60 }), (cmds) => {
        const tmp = tempDir();
        const clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
        const open = () =>
          Journal.open({
            path: tmp.path('j.db'),
            site: 's',
            clock,
            mode: 'owner',
            deadAfterAttempts: DEAD_AFTER,
            deadAfterDays: 1000,
          });
        const real: Real = { journal: open(), open, clock, ids: new Map(), claimed: [] };
        try {
          fc.modelRun(() => ({ model: { punches: new Map(), claimed: [] }, real }), cmds);
        } finally {
          real.journal.close();
          tmp.cleanup();
        }
      }),
      { numRuns: 60 },
    );
  });
});
