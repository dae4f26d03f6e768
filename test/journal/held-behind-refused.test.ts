import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import type { DeliveryQueue } from '../../src/journal/types.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * A claim with holdBehindRefused leaves out the punches of a code whose earlier punch is refused
 * and waiting (journal/held-behind-refused.ts), in the default sink's queue (punches table) and
 * another sink's (sink_deliveries) alike; without it nothing is held.
 */
let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.reverse()) f();
  cleanup = [];
});

function journal() {
  const clock = fakeClock();
  const tmp = tempDir('punchgate-held-');
  const j = Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'owner', clock });
  cleanup.push(
    () => tmp.cleanup(),
    () => j.close(),
  );
  j.useSinks({ defaultSink: 'hrms', others: ['odoo'] });
  const at = (h: number) => `2026-11-20 ${String(h).padStart(2, '0')}:00:00`;
  j.ingest([
    { terminal: 'gate', biometricCode: '7', logTime: at(8) },
    { terminal: 'gate', biometricCode: '8', logTime: at(9) },
    { terminal: 'gate', biometricCode: '7', logTime: at(12) },
    { terminal: 'gate', biometricCode: '__proto__', logTime: at(13) },
    { terminal: 'gate', biometricCode: '7', logTime: at(17) },
    { terminal: 'gate', biometricCode: '__proto__', logTime: at(18) },
  ]);
  return { j, clock, at };
}

const codesTimes = (q: DeliveryQueue, hold: boolean) =>
  q.claim(100, { holdBehindRefused: hold }).map((p) => `${p.biometricCode} ${p.logTime.slice(11, 13)}`);

describe.each(['default', 'other'] as const)('held behind a refused punch (%s sink)', (which) => {
  it("a code's later punches wait while its earlier one is refused; the refused one is taken when due", () => {
    const { j, clock } = journal();
    const q: DeliveryQueue = which === 'default' ? j : j.sinkQueue('odoo');
    const all = q.claim(100);
    const refuse = all.filter((p) => p.logTime.endsWith('08:00:00') || p.logTime.endsWith('13:00:00'));
    q.settle(refuse.map((p) => ({ id: p.id, kind: 'rejected' as const, message: 'refused' })));
    q.release(all.filter((p) => !refuse.includes(p)).map((p) => p.id));

    expect(q.dueCount({ holdBehindRefused: true })).toBe(1);
    expect(q.dueCount()).toBe(4);
    expect(codesTimes(q, true)).toEqual(['8 09']);
    clock.advance(2 * 3600_000); // the refused ones' retry is due: they are taken, not the later ones
    expect(codesTimes(q, true)).toEqual(['7 08', '__proto__ 13']);
    // Without the hold, a claim takes everything due.
    const { j: j2 } = journal();
    const q2: DeliveryQueue = which === 'default' ? j2 : j2.sinkQueue('odoo');
    expect(codesTimes(q2, false)).toHaveLength(6);
  });

  it('once the refused punch is delivered, the others follow', () => {
    const { j, clock } = journal();
    const q: DeliveryQueue = which === 'default' ? j : j.sinkQueue('odoo');
    const all = q.claim(100);
    const first7 = all.find((p) => p.biometricCode === '7')!;
    q.settle([{ id: first7.id, kind: 'rejected', message: 'refused' }]);
    q.release(all.filter((p) => p !== first7).map((p) => p.id));
    expect(codesTimes(q, true)).toEqual(['8 09', '__proto__ 13', '__proto__ 18']);
    clock.advance(2 * 3600_000);
    const [again] = q.claim(100, { holdBehindRefused: true });
    expect(again?.id).toBe(first7.id);
    q.settle([{ id: first7.id, kind: 'delivered' }]);
    expect(codesTimes(q, true)).toEqual(['7 12', '7 17']);
  });

  it("a code's refusals that hold nothing (an unknown code) go along ahead of its next punch, in order", () => {
    // The rehearsal that found it: code 1019 refused at Odoo as unknown; the employee added; a new
    // punch of 1019 sent (nothing held it) before `punches retry` re-queued the old one, which Odoo
    // then refused for good ("hasn't checked out since" the new one).
    const { j, clock, at } = journal();
    const q: DeliveryQueue = which === 'default' ? j : j.sinkQueue('odoo');
    const unknown = 'no employee in Odoo has barcode "7" (or that employee is archived)';
    const free = { holdBehindRefused: true, holdNothing: ['no employee in Odoo has %'] };
    const codes = (ps: { biometricCode: string; logTime: string }[]) =>
      ps.map((p) => `${p.biometricCode} ${p.logTime.slice(11, 13)}`);
    const all = q.claim(100);
    q.settle(
      all
        .filter((p) => p.biometricCode === '7')
        .map((p) => ({ id: p.id, kind: 'rejected' as const, message: unknown })),
    );
    q.release(all.filter((p) => p.biometricCode !== '7').map((p) => p.id));
    // Their retry is not due and no later punch of 7 waits: they are not sent.
    expect(codes(q.claim(100, free))).toEqual(['8 09', '__proto__ 13', '__proto__ 18']);
    j.ingest([{ terminal: 'gate', biometricCode: '7', logTime: at(19) }]);
    // The new punch of 7 takes the three refused ones along, before it, in time order; a limit
    // cuts from the end, never a later punch without the earlier ones.
    const two = q.claim(2, free);
    expect(codes(two)).toEqual(['7 08', '7 12']);
    q.settle(two.map((p) => ({ id: p.id, kind: 'delivered' as const })));
    const [third, fourth] = q.claim(100, free);
    expect(codes([third!, fourth!])).toEqual(['7 17', '7 19']);
    q.release([third!.id, fourth!.id]);
    j.ingest([{ terminal: 'gate', biometricCode: '7', logTime: at(20) }]);
    const refusedAgain = q.claim(100, free);
    expect(codes(refusedAgain)).toEqual(['7 17', '7 19', '7 20']);
    q.settle(refusedAgain.map((p) => ({ id: p.id, kind: 'rejected' as const, message: unknown })));
    expect(q.claim(100, free)).toEqual([]);
    clock.advance(3 * 3600_000);
    j.ingest([{ terminal: 'gate', biometricCode: '7', logTime: at(21) }]);
    const batch = q.claim(100, free);
    expect(codes(batch)).toEqual(['7 17', '7 19', '7 20', '7 21']);
    expect(batch.map((p) => p.previousState)).toEqual(['rejected', 'rejected', 'rejected', 'pending']);
  });
});
