import { afterEach, describe, expect, it } from 'vitest';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { waitFor } from '../helpers/wait.js';
import { attlog, http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

describe('ADMS receiver: who may push', () => {
  let r: Receiver | undefined;
  let sim: PushTerminalSim | undefined;
  afterEach(async () => {
    await sim?.stop();
    await r?.stop();
    r = sim = undefined;
  });

  it('refuses an unknown serial with a 4xx, stores nothing, and records it for the status', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ7232160001')] });
    const options = await http(r.url, 'GET', '/iclock/cdata?SN=STRANGER01&options=all');
    expect(options.status).toBe(403);
    expect(options.body).not.toMatch(/^OK|GET OPTION/);
    const up = await http(
      r.url,
      'POST',
      '/iclock/cdata?SN=STRANGER01&table=ATTLOG&Stamp=1',
      attlog(['1\t2026-11-01 08:00:00']),
    );
    expect(up.status).toBe(403);
    expect((await http(r.url, 'GET', '/iclock/getrequest?SN=STRANGER01')).status).toBe(403);
    expect((await http(r.url, 'GET', '/iclock/ping?SN=STRANGER01')).status).toBe(403);
    expect(r.journal.queries.list()).toEqual([]);
    await waitFor(() => r!.store.refusals()[0]?.count === 4, 20_000, 'the four refusals recorded');
    expect(r.store.refusals()[0]).toMatchObject({
      serial: 'STRANGER01',
      address: '127.0.0.1',
      reason: 'unknown',
      count: 4,
    });
    const warned = r.log.lines().filter((l) => String(l.msg).includes('is pushing but is not configured'));
    expect(warned).toHaveLength(1); // logged once, not per request
    expect(warned[0]!.msg).toContain('terminal SN=STRANGER01 is pushing but is not configured');
  });

  it('refuses a serial pushing from outside its allowFrom, and accepts it from inside', async () => {
    r = await startReceiver({
      terminals: [
        terminal('lobby', 'CQZ7232160001', { allowFrom: ['192.168.10.0/24', 'fd00::/64'] }),
        terminal('door', 'CQZ7232160002', { allowFrom: ['10.0.0.0/8', '127.0.0.1'] }),
      ],
    });
    const refused = await http(
      r.url,
      'POST',
      '/iclock/cdata?SN=CQZ7232160001&table=ATTLOG&Stamp=1',
      attlog(['1\t2026-11-01 08:00:00']),
    );
    expect(refused.status).toBe(403);
    const options = await http(r.url, 'GET', '/iclock/cdata?SN=CQZ7232160001&options=all');
    expect(options.status).toBe(403);
    const ok = await http(
      r.url,
      'POST',
      '/iclock/cdata?SN=CQZ7232160002&table=ATTLOG&Stamp=1',
      attlog(['2\t2026-11-01 08:00:00']),
    );
    expect(ok).toEqual({ status: 200, body: 'OK:1' });
    expect(r.journal.queries.list().map((p) => p.terminal)).toEqual(['door']);
    await waitFor(() => r!.store.refusals().length === 1, 20_000, 'refusal recorded');
    expect(r.store.refusals()[0]).toMatchObject({ serial: 'CQZ7232160001', reason: 'address', terminal: 'lobby' });
  });

  it('a simulated terminal refused keeps its punches and delivers them once it is configured', async () => {
    r = await startReceiver();
    sim = startPushTerminalSim({
      server: r.url,
      serial: 'LATE0001',
      punches: 30,
      delayMs: 50,
      errorDelayMs: 50,
      timeMode: 'sequence',
    });
    await waitFor(() => sim!.stats().failedRequests >= 3, 20_000, 'refusals seen by the terminal');
    expect(sim.acked()).toEqual([]);
    r.receiver.register(terminal('late', 'LATE0001'));
    await waitFor(() => sim!.pending() === 0, 10_000, 'every punch acknowledged');
    expect(r.journal.counts().pending).toBe(30);
    // Accepted now: the refusal is no longer news.
    await waitFor(() => r!.store.refusals().length === 0, 20_000, 'refusal forgotten after acceptance');
  });
});

describe('ADMS receiver: a flood of invented serials', () => {
  it('stays bounded in the log and in the journal', async () => {
    const r = await startReceiver();
    try {
      for (let i = 0; i < 400; i++) {
        const a = await http(r.url, 'GET', `/iclock/cdata?SN=FAKE${i}&options=all`);
        expect(a.status).toBe(403);
      }
      await waitFor(() => r.store.refusals().length > 0, 20_000, 'refusals recorded');
      const lines = r.log.lines().filter((l) => String(l.msg).includes('is pushing but is not configured'));
      expect(lines.length).toBeLessThanOrEqual(20);
      // 200 serials by name and one row summing the rest: every refused request is counted.
      expect(r.store.refusals().length).toBeLessThanOrEqual(201);
      await waitFor(
        () => r.store.refusals().reduce((n, x) => n + x.count, 0) === 400,
        20_000,
        'every refused request counted',
      );
    } finally {
      await r.stop();
    }
  });
});

describe('ADMS receiver: terminals come and go', () => {
  it('a terminal removed (reload) is told to retry for a moment, then refused; re-added, it is accepted again', async () => {
    let now = Date.UTC(2026, 10, 22, 12, 0, 0);
    const r = await startReceiver({ terminals: [terminal('lobby', 'GONE0001')], clock: { now: () => now } });
    try {
      expect((await http(r.url, 'GET', '/iclock/ping?SN=GONE0001')).body).toBe('OK');
      r.receiver.unregister('lobby');
      expect((await http(r.url, 'GET', '/iclock/ping?SN=GONE0001')).status).toBe(503);
      now += 11_000;
      expect((await http(r.url, 'GET', '/iclock/ping?SN=GONE0001')).status).toBe(403);
      r.receiver.register(terminal('lobby', 'GONE0001'));
      expect((await http(r.url, 'GET', '/iclock/ping?SN=GONE0001')).body).toBe('OK');
    } finally {
      await r.stop();
    }
  });
});
