import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { spawnDaemon } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';

/**
 * Issue 30, class 2, on the push port through `punchgate run`: many addresses each holding one
 * connection that serves nothing (idle, or half a request) must not keep a terminal out. The
 * receiver's rule "a newcomer takes the oldest connection of the greediest address" does not
 * apply when every address holds one; then the oldest idle connection goes, as on the status
 * server. Variants: idle connections, half a request line, half the headers, each reopened 50 ms
 * after it was closed; a terminal on another address and one on the box. Counted: what the HRMS
 * got, how many of the terminals' requests failed.
 */
const LOBBY = 'CQZ7232169301';
const GATE = 'CQZ7232169302';

describe('a terminal reaches the push port whatever many addresses hold open, through punchgate run', () => {
  it('40 addresses holding one idle or half-sent connection each, over a full adms.maxConnections: every punch delivered once, the terminals barely refused', async () => {
    const stack = await startPushStack({
      terminals: [
        { name: 'lobby', serial: LOBBY },
        { name: 'gate', serial: GATE },
      ],
      adms: { maxConnections: 24, maxConnectionsPerAddress: 4 },
      status: { listen: '127.0.0.1:0' },
    });
    const d = spawnDaemon(stack.configPath);
    const sockets: Socket[] = [];
    let holding = true;
    let connected = 0;
    const sims: PushTerminalSim[] = [];
    try {
      await waitFor(() => /push terminal receiver listening/.test(d.output()), 15_000, 'the receiver');
      const what = ['', 'GET /iclock/cdata?SN=', `POST /iclock/cdata?SN=${LOBBY}&table=ATTLOG HTTP/1.1\r\nHost: x\r\n`];
      const hold = (from: string, kind: number) => {
        if (!holding) return;
        const s = connect({ host: '127.0.0.1', port: stack.port, localAddress: from });
        sockets.push(s);
        s.on('connect', () => {
          connected++;
          if (what[kind]) s.write(what[kind]);
        });
        s.on('error', () => undefined);
        s.on('close', () => setTimeout(() => hold(from, kind), 50));
      };
      for (let a = 0; a < 40; a++) hold(`127.0.5.${10 + a}`, a % 3);
      await waitFor(() => connected >= 40, 10_000, 'the 40 addresses holding connections');
      const common = {
        server: stack.url,
        punches: 0,
        delayMs: 50,
        errorDelayMs: 50,
        // Longer than a loaded CI box holds the daemon or this process (a second or more: at 3 s a
        // request failed by chance now and then), shorter than the receiver's 10 s header timeout
        // that an upload kept out by the holders would wait for.
        requestTimeoutMs: 6000,
        batchSize: 10,
        timeMode: 'sequence' as const,
      };
      const lobby = startPushTerminalSim({ ...common, serial: LOBBY, variant: { connectionClose: true } });
      const gate = startPushTerminalSim({
        ...common,
        serial: GATE,
        localAddress: '127.0.6.1',
        // Other times than the lobby's: the HRMS takes a code at a time once.
        sequenceStart: '2026-10-01 08:00:00',
      });
      sims.push(lobby, gate);
      const sent = [...lobby.addPunches(30), ...gate.addPunches(30)];
      await waitFor(() => lobby.acked().length === 30 && gate.acked().length === 30, 30_000, 'both terminals served');
      await waitFor(() => stack.hrms.attendance().length >= sent.length, 30_000, 'their punches delivered');
      const failed = lobby.stats().failedRequests + gate.stats().failedRequests;
      // Without the idle rule, each upload waits for a holder's header timeout: tens of failures.
      expect(failed).toBeLessThanOrEqual(4);
      const delivered = stack.hrms.attendance().map((p) => `${p.biometriccode}@${p.logDate}`);
      expect(new Set(delivered).size).toBe(delivered.length);
      expect(delivered.length).toBe(sent.length);
      // The holders were still at it all along.
      expect(connected).toBeGreaterThan(40);
    } finally {
      holding = false;
      for (const s of sockets) s.destroy();
      for (const s of sims) await s.stop();
      d.child.kill('SIGTERM');
      const exit = await d.exited;
      await stack.stop();
      expect(exit, d.output().slice(-3000)).toEqual({ code: 0, signal: null });
    }
  }, 120_000);
});
