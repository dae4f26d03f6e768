import { afterEach, describe, expect, it } from 'vitest';
import { startHostileProxy, type HostileProxy } from '../helpers/hostile-proxy.js';
import { expectDeliveredExactlyOnce, makePunches, startRig, type Rig } from './helpers.js';

/**
 * The delivery loop behind a proxy that drops or holds the CONNECT now and then: each such request
 * fails in its connect timeout, the batch waits uncharged, and every punch reaches the HRMS once.
 */
const PASSWORD = 'Loop-proxy-pass-5';

describe('delivery through a proxy that fails at the CONNECT', () => {
  let rig: Rig | undefined;
  let proxy: HostileProxy | undefined;
  afterEach(async () => {
    await rig?.close();
    await proxy?.stop();
    rig = proxy = undefined;
  });

  it('closed and silent tunnels: every punch delivered once, none charged, the last error names the proxy', async () => {
    proxy = await startHostileProxy(['close', 'silent', 'close', 'pass', 'close', 'pass']);
    rig = await startRig({
      hrms: { proxy: proxy.url.replace('http://', `http://gate:${PASSWORD}@`), connectTimeoutMs: 400 },
    });
    const punches = makePunches(30);
    rig.journal.ingest(punches);
    const first = await rig.deliverer.drain({ maxWaitMs: 0 });
    expect(first.stoppedBy).not.toBe('done');
    const state = rig.journal.deliveryState.get();
    expect(state.lastError).toContain('the proxy closed the connection before opening a tunnel to the HRMS');
    expect(state.lastError).toContain(proxy.url);
    expect(JSON.stringify(state)).not.toContain(PASSWORD);
    expect(rig.journal.queries.list({ state: 'pending' }).every((p) => p.attempts === 0)).toBe(true);
    const report = await rig.deliverer.drain({ maxWaitMs: 3_600_000 });
    expect(report.stoppedBy).toBe('done');
    expectDeliveredExactlyOnce(rig, punches);
    expect(rig.sim.received()).toHaveLength(30);
    // One connection per failure and one kept-alive tunnel after: no storm of reconnections.
    expect(proxy.connections()).toBeLessThanOrEqual(6);
  }, 15_000);
});
