import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { BatchSizer, classifyOutcomes, compilePatterns, Deliverer, SplitQueue } from '../../src/delivery/index.js';
import type { AttendanceAnswer, AttendancePunch } from '../../src/hrms/attendance.js';
import type { OutboundPunch } from '../../src/journal/types.js';
import { silentLogger } from '../../src/util/logger.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { acceptAll, ScriptedSender } from './helpers.js';
import { memoryState, MemoryQueue } from './memory-queue.js';

const punch = (id: number): OutboundPunch => ({
  id,
  devicelogId: `s-${id}`,
  biometricCode: String(id),
  logTime: `2026-11-01 00:00:${String(id).padStart(2, '0')}`,
  terminal: 't',
  device: '',
  punchState: null,
  attempts: 0,
  previousState: 'pending',
});
const defaults = parseConfig({
  site: 's',
  journal: { path: '/tmp/unused.db' },
  hrms: { baseUrl: 'http://127.0.0.1:1' },
});

describe('outcome classification', () => {
  const dup = compilePatterns(defaults.delivery.patterns.duplicate);

  it('matches results by position; a missing result is unknown, never delivered', () => {
    const batch = [punch(1), punch(2), punch(3), punch(4)];
    const out = classifyOutcomes(
      batch,
      [
        { status: true, message: 'Attendance added successfully' },
        { status: false, message: 'Attendance already exists for this biometric code and time' },
        { status: false, message: 'Invalid logDate: x' },
      ],
      dup,
    );
    expect(out.map((o) => [o.id, o.kind])).toEqual([
      [1, 'delivered'],
      [2, 'duplicate'],
      [3, 'rejected'],
      [4, 'unknown'],
    ]);
    expect(out[2]).toMatchObject({ message: 'Invalid logDate: x' });
  });

  it('the default duplicate patterns fit the seed and the simulator, case-insensitively; others are rejected', () => {
    const kinds = (m: string) => classifyOutcomes([punch(1)], [{ status: false, message: m }], dup)[0]!.kind;
    expect(kinds('ATTENDANCE ALREADY EXISTS for this biometric code and time')).toBe('duplicate');
    expect(kinds('Duplicate punch')).toBe('duplicate');
    expect(kinds('Unknown biometric code 7')).toBe('rejected');
    expect(kinds('')).toBe('rejected');
  });

  it('a configured pattern that is not a valid regular expression is matched as text', () => {
    const [p] = compilePatterns(['already (recorded']);
    expect(p!.test('punch ALREADY (RECORDED here')).toBe(true);
    expect(p!.test('already recorded')).toBe(false);
  });
});

describe('batch size, split queue', () => {
  it('the batch size halves to a floor of 1 and grows only after full successful batches', () => {
    const s = new BatchSizer(200, 3);
    expect([s.shrink(), s.shrink(60), s.shrink(1), s.shrink()]).toEqual([100, 30, 1, 1]);
    s.succeeded(false);
    s.succeeded(false);
    s.succeeded(false);
    expect(s.current).toBe(1);
    for (let i = 0; i < 3; i++) s.succeeded(true);
    expect(s.current).toBe(2);
  });

  it('the split queue puts the halves first, in order', () => {
    const q = new SplitQueue([1, 2, 3, 4, 5]);
    const all = q.next()!;
    q.split(all);
    expect(q.next()).toEqual([1, 2, 3]);
    expect(q.drainRemaining()).toEqual([4, 5]);
    expect(q.next()).toBeUndefined();
  });
});

describe('splitting isolates exactly the poisonous punches (property, in-memory queue)', () => {
  it('for any batch, poison set and transient failures: every punch settled or requeued once, only poison rejected', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 16 }),
        fc.array(fc.integer({ min: 0, max: 39 }), { maxLength: 4 }),
        fc.integer({ min: 0, max: 1000 }),
        async (n, batchSize, poisonIdx, seed) => {
          const q = new MemoryQueue();
          const ids = Array.from({ length: n }, (_, i) =>
            q.add(
              `c${i}`,
              `2026-11-01 00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
            ),
          );
          const poison = new Set(poisonIdx.filter((i) => i < n).map((i) => `c${i}`));
          const rnd = seededRandom(seed);
          const hrms = (b: readonly AttendancePunch[]): AttendanceAnswer => {
            if (rnd() < 0.2) return { kind: 'transient', message: 'HTTP 503', afterSending: true };
            if (b.some((p) => poison.has(p.biometriccode)))
              return { kind: 'refused', httpStatus: 400, message: 'refused' };
            return acceptAll(b);
          };
          const d = new Deliverer({
            queue: q,
            state: memoryState(),
            tokens: { get: () => 'tok-1234' },
            hrms: defaults.hrms!,
            delivery: { ...defaults.delivery, batchSize },
            logger: silentLogger(),
            clock: { now: () => 0 },
            sleep: async () => {},
            sender: new ScriptedSender([hrms]),
          });
          const r = await d.drain({ maxWaitMs: Number.MAX_SAFE_INTEGER });
          expect(r.stoppedBy).toBe('done');
          expect(q.count('inflight')).toBe(0);
          for (const id of ids) {
            const row = q.rows.get(id)!;
            expect(row.state).toBe(poison.has(row.code) ? 'rejected' : 'delivered');
            expect(row.attempts).toBe(1);
          }
          expect(r.delivered + r.rejected).toBe(n);
        },
      ),
      { numRuns: 150, seed: 20261122 },
    );
  });
});
