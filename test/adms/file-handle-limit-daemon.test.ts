import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import type { StatusReport } from '../../src/status/types.js';
import { spawnDaemon, statusUrl } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';

/**
 * Found by a resource trial: `punchgate run` under a low file handle limit (`ulimit -n`), its push
 * port held open by many connections. The receiver's default bounds (1024 in all, 64 from one
 * address) let them take every handle: the status log could not be written (EMFILE), the status
 * page answered nothing, and nothing named the cause. The receiver must keep to what the limit
 * leaves, a terminal's punches must still be kept and delivered, and the status must say why.
 */
const LOBBY = 'CQZ7232169401';

describe('punchgate run under a low file handle limit, its push port crowded', () => {
  it('keeps the status and a terminal served, and says the limit is the cause with the fix', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'lobby', serial: LOBBY }] });
    const d = spawnDaemon(stack.configPath, [], {}, ['sh', '-c', 'ulimit -n 150; exec "$@"', 'sh']);
    const sockets: Socket[] = [];
    let holding = true;
    let connected = 0;
    let sim: PushTerminalSim | undefined;
    try {
      await waitFor(() => /push terminal receiver listening/.test(d.output()), 15_000, 'the receiver');
      const url = await statusUrl(d);
      const hold = (from: string) => {
        if (!holding) return;
        const s = connect({ host: '127.0.0.1', port: stack.port, localAddress: from });
        sockets.push(s);
        s.on('connect', () => connected++);
        s.on('error', () => undefined);
        s.on('close', () => setTimeout(() => hold(from), 50));
      };
      // 300 connections from 30 addresses, 10 each: under the per-address bound, over the limit.
      for (let a = 0; a < 30; a++) for (let i = 0; i < 10; i++) hold(`127.0.7.${10 + a}`);
      await waitFor(() => connected >= 150, 10_000, 'the holders connected');
      sim = startPushTerminalSim({
        server: stack.url,
        serial: LOBBY,
        punches: 0,
        delayMs: 50,
        errorDelayMs: 50,
        requestTimeoutMs: 6000,
        batchSize: 10,
        timeMode: 'sequence',
        localAddress: '127.0.8.1',
      });
      const sent = sim.addPunches(20);
      await waitFor(() => sim!.acked().length === 20, 30_000, 'the terminal served');
      await waitFor(() => stack.hrms.attendance().length >= sent.length, 30_000, 'its punches delivered');
      let alert: StatusReport['alertItems'][number] | undefined;
      await waitFor(
        async () => {
          // Before the bound, the page took no connection at all: a fetch that never ends.
          const got = await fetch(`${url}status.json`, { signal: AbortSignal.timeout(3000) }).catch(() => undefined);
          if (!got) return false;
          const r = (await got.json()) as StatusReport;
          alert = r.alertItems.find((a) => a.kind === 'file-handles-short');
          return alert !== undefined;
        },
        10_000,
        'the file handle alert on /status.json',
      );
      expect(alert!.cause).toMatch(/only 150 files and connections open at once \(its file handle limit, ulimit -n\)/);
      expect(alert!.fix).toMatch(/LimitNOFILE=\d+/);
      expect(d.output()).not.toMatch(/could not write the status log/);
      expect(d.output()).toMatch(/"level":40[^\n]*only 150 files and connections/);
    } finally {
      holding = false;
      for (const s of sockets) s.destroy();
      await sim?.stop();
      d.child.kill('SIGTERM');
      await d.exited;
      await stack.stop();
    }
  }, 60_000);
});
