import { afterEach, describe, expect, it } from 'vitest';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { renderPage } from '../../src/web/page.js';
import { acceptEvery, startScriptedHrms, type ScriptedHrms } from '../helpers/scripted-hrms.js';
import { makePunches, startRig, type Rig } from './helpers.js';

const MIN = 60_000;

/**
 * An HRMS that answers `Retry-After: 86400` (or a date a day ahead) is honoured, but delivery
 * waits at most delivery.retryAfterMaxMs before asking again, and the status says what the HRMS
 * asked and when punchgate asks again: it held delivery an hour without a word or a probe.
 */
describe('a huge Retry-After', () => {
  let rig: Rig | undefined;
  let hrms: ScriptedHrms | undefined;
  afterEach(async () => {
    await rig?.close();
    await hrms?.stop();
    rig = hrms = undefined;
  });

  /** Runs the loop for `ms` of monotonic time (its sleeps move the fake clock); the elapsed time of each request. */
  async function run(r: Rig, h: ScriptedHrms, ms: number): Promise<number[]> {
    const start = r.clock.elapsed();
    const at: number[] = [];
    const reply = h.reply;
    h.reply = (req) => {
      at.push(r.clock.elapsed() - start);
      return reply(req);
    };
    const stop = new AbortController();
    const d = r.makeDeliverer({
      sleep: async (wait: number) => {
        r.clock.advance(wait);
        if (r.clock.elapsed() - start >= ms) stop.abort();
      },
    });
    await d.run(stop.signal);
    await d.close();
    return at;
  }

  for (const [name, header, extra] of [
    ['seconds, with the default bound (5 min)', () => '86400', {}],
    [
      'an HTTP date a day ahead, with retryAfterMaxMs: 2 min',
      // An HTTP date is read against the box's own clock (the real one), as in life.
      () => new Date(Date.now() + 86_400_000).toUTCString(),
      { retryAfterMaxMs: 2 * MIN },
    ],
  ] as const) {
    it(`${name}: honoured up to the bound, said with its time and the fix, then every punch delivered once`, async () => {
      let refused = false;
      hrms = await startScriptedHrms(acceptEvery);
      rig = await startRig({ hrms: { baseUrl: hrms.url }, delivery: { pollIntervalMs: 1000, ...extra } });
      const r = rig;
      const bound = 'retryAfterMaxMs' in extra ? extra.retryAfterMaxMs : 5 * MIN;
      hrms.reply = (req) => {
        if (refused) return acceptEvery(req);
        refused = true;
        return { status: 429, headers: { 'retry-after': header() }, body: { message: 'slow down' } };
      };
      r.journal.ingest(makePunches(20));
      const at = await run(r, hrms, 10 * MIN);
      // One 429, then the next request at the bound (not an hour later); nothing in between.
      expect(at[0]).toBe(0);
      expect(at[1]).toBeGreaterThanOrEqual(bound);
      expect(at[1]).toBeLessThan(bound + 5000);
      // Every punch delivered once.
      expect(r.journal.queries.counts()).toMatchObject({ delivered: 20, pending: 0, inflight: 0 });
      const ids = hrms.seen.slice(1).flatMap((s) => s.punches.map((p) => p.devicelogId));
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);

      // While it waited, the state said what the HRMS asked, when punchgate asks again, and the fix.
      // (Replayed: the 429 again, read by the status.)
      refused = false;
      r.journal.ingest(makePunches(1, { start: 900 }));
      await r.makeDeliverer().deliverBatch({ ignoreBackoff: true });
      const now = r.clock.now();
      const status = formatStatus(buildStatus(r.journal, r.config, now, { freeBytes: null }));
      const day = new Date(now + 86_400_000).toISOString().slice(0, 10);
      expect(status).toMatch(
        new RegExp(`the HRMS asked to wait until ${day} \\d\\d:\\d\\d:\\d\\d \\+00:00 \\(Retry-After\\)`),
      );
      expect(status).toContain('HRMS: FAILING: the HRMS asked punchgate to wait (Retry-After: see the last error)');
      expect(status).toContain('delivery.retryAfterMaxMs');
      expect(status).toContain('punchgate flush');
      const page = renderPage(buildStatus(r.journal, r.config, now, { freeBytes: null }), {
        version: '0',
        uptimeSeconds: 60,
        zone: 'UTC',
        refreshSeconds: 10,
      });
      expect(page).toMatch(/the HRMS asked to wait until [^<]+ \(Retry-After\); punchgate asks again at/);
    });
  }
});
