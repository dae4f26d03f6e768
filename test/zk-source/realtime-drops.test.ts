import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { activeZkNotes } from '../../src/sources/zk/notes.js';
import { defaultClientFactory } from '../../src/sources/zk/poll.js';
import { RealtimeLink } from '../../src/sources/zk/realtime.js';
import { deviceNoteAlerts } from '../../src/status/dahua.js';
import { waitFor } from '../helpers/wait.js';
import { captureLogger } from '../serial/helpers.js';
import { journalFixture, zkConfig } from './helpers.js';

/** A TCP proxy before the terminal that cuts every connection `cutMs` after it was made (null: never). */
async function cuttingProxy(
  target: number,
): Promise<{ port: number; cutMs: number | null; stop: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const proxy = {
    port: 0,
    cutMs: 300 as number | null,
    stop: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer((down) => {
    const up = connect(target, '127.0.0.1');
    for (const s of [down, up]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    down.pipe(up).pipe(down);
    down.on('close', () => up.destroy());
    up.on('close', () => down.destroy());
    if (proxy.cutMs !== null) setTimeout(() => down.destroy(), proxy.cutMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.port = (server.address() as AddressInfo).port;
  return proxy;
}

describe('ZK real-time link that keeps dropping (found by an adversarial trial)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('backs off while connections die young, says it once and in the status, and clears it once a connection stays up', async () => {
    const sim = await startTerminalSim({ users: [{ uid: 1, userId: '1042', name: 'A' }], punches: [] });
    const proxy = await cuttingProxy(sim.port);
    let now = Date.UTC(2026, 10, 30, 9);
    const fx = journalFixture(() => now);
    const log = captureLogger('debug');
    cleanups.push(
      () => sim.stop(),
      () => proxy.stop(),
      fx.cleanup,
    );
    const cfg = zkConfig(proxy.port, { realtime: true, timeoutMs: 3000 });
    const link = new RealtimeLink(cfg, { ...fx.deps, logger: log.logger }, defaultClientFactory, () => 'SIM1', {
      reconnect: { baseMs: 50, maxMs: 400 },
      healthyMs: 1500,
    });
    cleanups.push(() => link.stop());
    link.start();

    const retries = () => log.entries.filter((e) => e.msg === 'real-time link down, reconnecting');
    await waitFor(() => retries().length >= 6, 20_000, 'six drops');
    // The wait grows while connections die young: a reset on each subscribe would retry at 50 ms for ever.
    expect(retries().map((e) => e.retryInMs)).toEqual(expect.arrayContaining([50, 100, 200, 400]));
    expect(
      retries()
        .slice(0, 6)
        .map((e) => e.retryInMs),
    ).toEqual([50, 100, 200, 400, 400, 400]);
    // Said once, not two info lines per drop (on a loaded box the first cut may come before the
    // first subscription: then "paused" comes first, and no "flow again").
    const said = (level: number) => log.entries.filter((e) => e.level === level && e.msg !== undefined);
    const infos = said(30).map((e) => e.msg);
    expect(infos.length).toBeLessThanOrEqual(3);
    expect(infos).toContain('terminal gate-1: real-time events subscribed');
    expect(infos.filter((m) => /events paused/.test(m))).toEqual([
      'terminal gate-1: real-time events paused (the link dropped): polls go on, nothing is missed',
    ]);
    await waitFor(() => said(40).length > 0, 10_000, 'the link said to keep dropping');
    expect(said(40)).toHaveLength(1);
    expect(said(40)[0]!.msg).toMatch(/real-time connection keeps dropping soon after it opens \(\d+ times in a row\)/);
    // The status says it.
    const config = { terminals: [cfg] } as unknown as Config;
    const [alert, ...more] = deviceNoteAlerts(fx.journal, config, now);
    expect(more).toEqual([]);
    expect(alert).toMatchObject({ kind: 'zk-realtime' });
    expect(alert!.cause).toMatch(/^terminal gate-1: its real-time connection keeps dropping soon after it opens/);

    // Said again at a bounded rate: ten minutes later, once more.
    now += 11 * 60_000;
    await waitFor(() => said(40).length === 2, 10_000, 'said again after ten minutes');
    const drops = retries().length;
    await waitFor(() => retries().length >= drops + 3, 10_000, 'three more drops');
    expect(said(40)).toHaveLength(2);
    expect(said(30)).toHaveLength(infos.length);

    // The cuts stop: once a connection stays up, the note goes and the trouble is said to be over.
    proxy.cutMs = null;
    await waitFor(() => activeZkNotes(fx.journal.sourceState, 'gate-1', now).length === 0, 10_000, 'note cleared');
    expect(said(30).at(-1)!.msg).toMatch(/the real-time connection stays up again/);
  }, 60_000);
});
