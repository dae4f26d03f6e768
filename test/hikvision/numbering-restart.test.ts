import { afterEach, describe, expect, it } from 'vitest';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import type { HikvisionSim } from '../../src/sim/hikvision/index.js';
import { DEFAULT_HIK_SERIAL } from '../../src/sim/hikvision/index.js';
import { expectedPunches, hikConfig, journalFixture, journalKeys, passwordEnv, searches, startSim } from './helpers.js';

let sim: HikvisionSim | undefined;
let fx: ReturnType<typeof journalFixture> | undefined;
const pollers: HikvisionPoller[] = [];
afterEach(async () => {
  for (const p of pollers.splice(0)) await p.close();
  await sim?.stop();
  fx?.cleanup();
  sim = fx = undefined;
});

describe('Hikvision numbering that starts again', () => {
  it('reads every pass when the new numbers pass the old read position before the next poll', async () => {
    sim = await startSim(10);
    fx = journalFixture();
    const p = new HikvisionPoller(hikConfig(sim), fx.deps, undefined, passwordEnv());
    pollers.push(p);
    await p.poll();
    const before = sim.events();
    const cursor = before.at(-1)!.serialNo;
    // The terminal reset (a reboot after a firmware update, a log cleared) and numbers from 1 again;
    // punchgate was away while more events than the old read position came.
    sim.clearLog();
    const base = Date.now() - 30 * 60_000;
    const n = cursor + 15;
    sim.addEvents(
      Array.from({ length: n }, (_, i) => ({
        major: 5,
        minor: 75,
        employeeNoString: `AFTER${i + 1}`,
        time: new Date(base + i * 1000 + 5.5 * 3_600_000).toISOString().slice(0, 19) + '+05:30',
      })),
    );
    const r = await p.poll();
    expect(r.ok).toBe(true);
    expect(journalKeys(fx.journal)).toEqual([...expectedPunches(before), ...expectedPunches(sim.events())].sort());
  });

  it('a read position kept by an older punchgate (no time of its event) takes it from the device, then notices', async () => {
    sim = await startSim(5);
    fx = journalFixture();
    const p = new HikvisionPoller(hikConfig(sim), fx.deps, undefined, passwordEnv());
    pollers.push(p);
    await p.poll();
    const key = `events:${DEFAULT_HIK_SERIAL}`;
    const kept = JSON.parse(fx.journal.sourceState.get('reception', key)!) as { serialNo: number; at?: string };
    expect(kept.at).toBeDefined();
    fx.journal.sourceState.set({ terminal: 'reception', key, value: JSON.stringify({ ...kept, at: undefined }) });
    sim.addEvents([{ major: 5, minor: 75, employeeNoString: 'NEXT' }]);
    sim.clearRequests();
    expect(await p.poll()).toMatchObject({ ok: true, added: 1, rows: 1 });
    expect(searches(sim)[0]!.beginSerialNo).toBe(kept.serialNo);
    expect(JSON.parse(fx.journal.sourceState.get('reception', key)!)).toMatchObject({
      serialNo: kept.serialNo + 1,
      at: expect.any(String),
    });
  });
});
