import { afterEach, describe, expect, it } from 'vitest';
import type { PunchResult } from '../../src/hrms/answer.js';
import { OdooSender } from '../../src/sinks/odoo/sender.js';
import type { SinkPunch } from '../../src/sinks/types.js';
import { DEFAULT_SIM_KEY, startOdooSim, type OdooSim } from '../../src/sim/odoo/index.js';
import { seededRandom } from '../../src/util/seeded-random.js';

/**
 * Whatever goes wrong on the way (writes whose answer is lost, concurrent-update failures, 5xx
 * pages, batches cut anywhere, punches sent again after they were delivered), Odoo ends with the
 * same records as one clean delivery: never a second record, never a crossed pair.
 */
const EMPLOYEES = Array.from({ length: 6 }, (_, i) => ({ name: `E${i + 1}`, barcode: String(2001 + i) }));
let open: Array<OdooSim | OdooSender> = [];
afterEach(async () => {
  for (const o of open.reverse()) await ('stop' in o ? o.stop() : o.close());
  open = [];
});

function day(rand: () => number): SinkPunch[] {
  const out: SinkPunch[] = [];
  let n = 0;
  const p = (d: number) => String(d).padStart(2, '0');
  for (const e of EMPLOYEES) {
    for (let dayNo = 24; dayNo <= 27; dayNo++) {
      // Each day a shift (some overnight across the fall-back night of 25 October), some with a break.
      const start = 6 + Math.floor(rand() * 16);
      const len = 6 + Math.floor(rand() * 4);
      const times = rand() < 0.4 ? [0, 3, 3.5, len] : [0, len];
      const directed = rand() < 0.5;
      times.forEach((h, k) => {
        const t = Date.UTC(2026, 9, dayNo, start, 0, 0) + h * 3600_000;
        const d = new Date(t);
        out.push({
          devicelogId: `${e.barcode}-${++n}`,
          biometricCode: e.barcode,
          logTime: `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:00`,
          terminal: 'gate',
          device: 'SN1',
          timezone: 'Europe/Berlin',
          ...(directed ? { direction: k % 2 === 0 ? ('in' as const) : ('out' as const) } : {}),
        });
      });
    }
  }
  return out.sort((a, b) => a.logTime.localeCompare(b.logTime));
}

const records = (sim: OdooSim) =>
  sim.store.attendances.map((a) => `${a.employee_id} ${a.check_in} -> ${a.check_out || 'open'}`).sort();

async function start(faults = {}) {
  const sim = await startOdooSim({ employees: EMPLOYEES, faults });
  const sender = new OdooSender({
    baseUrl: sim.url,
    database: 'odoo',
    api: 'json2',
    concurrency: 3,
    longestShiftHours: 12,
  });
  open.push(sim, sender);
  return { sim, sender };
}

describe('Odoo sink: delivery again and again', () => {
  it.each([1, 2, 3])('ends with the records of a clean delivery (seed %i)', async (seed) => {
    const punches = day(seededRandom(seed));
    const clean = await start();
    const cleanAnswer = await clean.sender.send(punches, { token: DEFAULT_SIM_KEY });
    expect(cleanAnswer.kind).toBe('answered');
    const cleanResults = (cleanAnswer as { results: PunchResult[] }).results;
    expect(cleanResults.every((r) => r.status)).toBe(true);

    const rand = seededRandom(seed * 7919);
    const rough = await start({ serializationRate: 0.15, errorRate: 0.05, seed });
    const done = new Set<string>();
    for (let round = 0; round < 400 && done.size < punches.length; round++) {
      if (rand() < 0.3) rough.sim.setFaults({ dropAfterWrite: 1 + Math.floor(rand() * 2) });
      const pending = punches.filter((p) => !done.has(p.devicelogId));
      // The oldest pending punches, and now and then some delivered ones again (a replayed journal).
      const batch = pending.slice(0, 1 + Math.floor(rand() * 12));
      if (rand() < 0.3) batch.unshift(...punches.filter((p) => done.has(p.devicelogId)).slice(0, 5));
      batch.sort((a, b) => a.logTime.localeCompare(b.logTime));
      const a = await rough.sender.send(batch, { token: DEFAULT_SIM_KEY });
      if (a.kind !== 'answered') {
        expect(a.kind).toBe('transient');
        continue;
      }
      a.results.forEach((r, i) => {
        if (r.unknown) return;
        expect(r.status, r.message).toBe(true);
        done.add(batch[i]!.devicelogId);
      });
    }
    expect(done.size).toBe(punches.length);
    expect(records(rough.sim)).toEqual(records(clean.sim));
    // A replaced box sends the whole journal again: nothing changes.
    rough.sim.setFaults({ serializationRate: 0, errorRate: 0, dropAfterWrite: 0 });
    const replay = await rough.sender.send(punches, { token: DEFAULT_SIM_KEY });
    expect(
      (replay as { results: PunchResult[] }).results.every((r) => r.status && /already recorded/.test(r.message)),
    ).toBe(true);
    expect(records(rough.sim)).toEqual(records(clean.sim));
  });
});
