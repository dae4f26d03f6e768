import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/ports.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { renderPage } from '../../src/web/page.js';
import { makePunches, startRig, TOKEN, type Rig } from './helpers.js';

const MIN = 60_000;

type Outage = 'refused' | 'http-503' | 'reset' | 'html-200';

interface Recovery {
  /** Fake-clock ms from the HRMS's return to the first punch it took. */
  delayMs: number;
  /** What the status said 11 minutes into the outage (and 9). */
  at9: string[];
  at11: string[];
  statusText: string;
  /** The status page at 11 minutes. */
  page: string;
}

/**
 * The HRMS goes away for `minutes` of the fake clock (the project's clock seam: every wait of the
 * deliverer is a sleep that moves it), then comes back; the deliverer runs its own loop meanwhile.
 * Returns how long after the return the first punch was delivered (the journal's delivered_at,
 * on the same clock).
 */
async function outage(
  rig: Rig,
  kind: Outage,
  minutes: number,
  delivery: Record<string, unknown> = {},
): Promise<Recovery> {
  const punches = makePunches(20);
  rig.journal.ingest(punches);
  let sim: HrmsSim = rig.sim;
  const port = Number(new URL(sim.url).port);
  const downAt = rig.clock.now();
  const backAt = downAt + minutes * MIN;
  let down = true;
  if (kind === 'refused') await sim.stop();
  else if (kind === 'http-503') sim.setFaults({ errorRate: 1 });
  else if (kind === 'html-200') sim.setFaults({ nonJsonRate: 1 });
  else sim.setFaults({ resetRate: 1 });

  const stop = new AbortController();
  let at9: string[] = [];
  let at11: string[] = [];
  let statusText = '';
  let page = '';
  const status = () =>
    buildStatus(rig.journal, rig.config, rig.clock.now(), {
      freeBytes: null,
      live: { journalBusySince: null, heldPunches: 0, delivery: { nextTryAt: d.nextTryAt, probing: d.probing } },
    });
  const sleep = async (ms: number, signal?: AbortSignal) => {
    if (signal?.aborted) return;
    const before = rig.clock.now();
    rig.clock.advance(ms);
    const now = rig.clock.now();
    if (before < downAt + 9 * MIN && now >= downAt + 9 * MIN && down) at9 = status().alerts;
    if (before < downAt + 11 * MIN && now >= downAt + 11 * MIN && down) {
      const r = status();
      at11 = r.alerts;
      statusText = formatStatus(r);
      page = renderPage(r, { version: '0', uptimeSeconds: 660, zone: 'UTC', refreshSeconds: 10 });
    }
    if (down && now >= backAt) {
      // The HRMS is back from backAt on: nothing asked it between backAt and now.
      down = false;
      if (kind === 'refused') sim = await startHrmsSim({ tokens: [TOKEN], now: rig.clock.now, port });
      else sim.setFaults({ errorRate: 0, resetRate: 0, nonJsonRate: 0 });
    }
    if (rig.journal.queries.counts().delivered === punches.length) stop.abort();
    // Let the event loop breathe (real sockets answer between the fake waits).
    await new Promise((r) => setImmediate(r));
  };
  const d = rig.makeDeliverer({ sleep, delivery: { ...rig.config.delivery, ...delivery } });
  await d.run(stop.signal);
  const first = Math.min(...rig.journal.queries.list({ state: 'delivered' }).map((p) => p.deliveredAt ?? Infinity));
  if (kind === 'refused') await sim.stop();
  expect(rig.journal.queries.counts().delivered).toBe(punches.length);
  return { delayMs: first - backAt, at9, at11, statusText, page };
}

describe('delivery comes back within 30 s of the HRMS, whatever the backoff', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close().catch(() => undefined);
    rig = undefined;
  });

  for (const kind of ['refused', 'http-503', 'reset'] as const) {
    for (const minutes of [1, 5, 30]) {
      it(`after ${minutes} min of an HRMS that ${kind === 'refused' ? 'refuses connections' : kind === 'http-503' ? 'answers 503' : 'resets connections'}`, async () => {
        // The default backoff: 1 s doubling to 5 min, with full jitter. The HRMS that refuses
        // connections is started again on its port: one below the ephemeral range, which no
        // outgoing connection of the box can take meanwhile.
        rig = await startRig({ delivery: { batchSize: 10 }, sim: { port: await freePort() } });
        const r = await outage(rig, kind, minutes);
        if (process.env.SHOW_DELAYS) console.log(`DELAY ${kind} ${minutes} min: ${r.delayMs} ms`);
        expect(r.delayMs).toBeGreaterThanOrEqual(0);
        expect(r.delayMs).toBeLessThanOrEqual(30_000);
      }, 120_000);
    }
  }

  it('after 30 min of an HTML page answered with 200 (a captive portal, a proxy login page): probed as an outage is', async () => {
    rig = await startRig({ delivery: { batchSize: 10 }, sim: { port: await freePort() } });
    const r = await outage(rig, 'html-200', 30);
    expect(r.delayMs).toBeGreaterThanOrEqual(0);
    expect(r.delayMs).toBeLessThanOrEqual(30_000);
    // The alert says the HRMS is asked every few seconds, and when the next try is.
    expect(r.at11.join('\n')).toContain(
      '(the HRMS is asked every few seconds: delivery resumes within 30 s of its return)',
    );
    expect(r.statusText).toMatch(/next try \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
  }, 120_000);

  it('without the probe, the backoff alone comes back minutes late after a long outage (what the probe cures)', async () => {
    rig = await startRig({ delivery: { batchSize: 10 }, sim: { port: await freePort() } });
    const r = await outage(rig, 'refused', 30, { probeIntervalMs: 0 });
    if (process.env.SHOW_DELAYS) console.log(`DELAY no probe: ${r.delayMs} ms`);
    expect(r.delayMs).toBeGreaterThan(30_000);
  }, 120_000);

  it('an alert after delivery.alertAfterMinutes (10) of failing, with the reason, the next try and flush; none before', async () => {
    rig = await startRig({ delivery: { batchSize: 10 }, sim: { port: await freePort() } });
    const r = await outage(rig, 'refused', 30);
    expect(r.at9.filter((a) => a.startsWith('delivery failing'))).toEqual([]);
    const alert = r.at11.find((a) => a.startsWith('delivery failing'));
    expect(alert).toMatch(
      /^delivery failing for 1[01] min: 20 punches waiting, kept safely; the HRMS refuses connections: it is down or restarting \(or hrms\.baseUrl names the wrong port\) \(.*ECONNREFUSED.*\): next try at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d \(the HRMS is asked every few seconds: delivery resumes within 30 s of its return\); to try now: sudo -u punchgate punchgate flush; punchgate check says whether this box reaches the HRMS$/,
    );
    expect(r.statusText).toMatch(/failing since .*: next try .*; to try now: sudo -u punchgate punchgate flush/);
    // Not "token accepted" while nothing gets through: the reason, on the status and the page.
    expect(r.statusText).toContain('HRMS: FAILING: the HRMS refuses connections: it is down or restarting');
    expect(r.page).toMatch(/FAILING since <time [^>]*>[^<]*<\/time>.*?<\/span>: the HRMS refuses connections/);
    expect(r.page).toMatch(/<dd id="next-try">\s*<time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    expect(r.page).toContain('the HRMS is asked every few seconds meanwhile');
    expect(r.page).toContain('<code>sudo -u punchgate punchgate flush</code>');
    expect(r.page).toContain('data-kind="delivery-failing"');
  }, 120_000);

  it('the alert time is the config key delivery.alertAfterMinutes', async () => {
    rig = await startRig({ delivery: { batchSize: 10, alertAfterMinutes: 5 } });
    const r = await outage(rig, 'http-503', 30);
    expect(r.at9.find((a) => a.startsWith('delivery failing'))).toMatch(
      /^delivery failing for 9 min: .*the HRMS is up but failing \(HTTP 503/,
    );
  }, 120_000);
});
