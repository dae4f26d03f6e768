import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { freePort } from '../../bench/lib/ports.js';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { spawnDaemon, statusUrl, type DaemonProcess } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';

/** Another program holding a loopback port (what a site admin meets: a second service on 8081). */
async function holdPort(port: number): Promise<Server> {
  const s = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve());
  });
  return s;
}

const release = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()));

interface StatusJson {
  alerts: string[];
  alertItems: { kind: string; cause: string; fix: string }[];
  terminals: { name: string; online: boolean; problem: { cause: string } | null }[];
  listeners?: { listener: string; listen: string; up: boolean; code: string | null; downSince: string | null }[];
}

const users = (k: number) =>
  Array.from({ length: 4 }, (_, i) => ({
    pin: String((k + 1) * 1000 + i),
    name: `U${k}-${i}`,
    privilege: 0,
    card: '',
  }));

async function stopDaemon(d: DaemonProcess): Promise<void> {
  d.child.kill('SIGTERM');
  const exit = await d.exited;
  expect(exit, d.output().slice(-3000)).toEqual({ code: 0, signal: null });
}

describe('a port punchgate run cannot take is said at once, and taken when it is free', () => {
  it('adms.listen held by another program: alert, terminals not online, listener gauge 0, /readyz 503; freed: taken on the next try, alert gone, punches delivered', async () => {
    const stack = await startPushStack({
      terminals: [
        { name: 'lobby', serial: 'LOBBY0001' },
        { name: 'door', serial: 'SECDOOR01' },
      ],
      status: { listen: '127.0.0.1:0' },
    });
    let blocker: Server | undefined = await holdPort(stack.port);
    const d = spawnDaemon(stack.configPath);
    const sims: PushTerminalSim[] = [];
    const cli = async () =>
      JSON.parse((await runPunchgate(['--config', stack.configPath, 'status', '--json'])).stdout) as StatusJson;
    try {
      const page = await statusUrl(d);
      const get = async (path: string) => {
        const r = await fetch(new URL(path, page));
        return { status: r.status, body: await r.text() };
      };
      const metric = async () =>
        (await get('/metrics')).body.split('\n').find((l) => l.startsWith('punchgate_listener_up{listener="push"}'));
      // status.json beside the status log, the page's /status.json and `status --json` all say it.
      // (the first status, written before the page listens, has no word of the page yet)
      const written = () => JSON.parse(readFileSync(stack.tmp.path('status.json'), 'utf8')) as StatusJson;
      await waitFor(
        () =>
          written().alertItems.some((a) => a.kind === 'push-not-listening') &&
          written().listeners?.some((l) => l.listener === 'status') === true,
        15_000,
        'the alert in status.json',
      );
      const listen = `127.0.0.1:${stack.port}`;
      const status = await cli();
      const alert = status.alertItems.find((a) => a.kind === 'push-not-listening');
      expect(alert?.cause).toContain(`the push terminal receiver cannot listen on ${listen} since `);
      expect(alert?.cause).toContain('another program holds that port');
      expect(alert?.cause).toContain('push terminals lobby, door cannot send their punches');
      expect(alert?.fix).toContain(`ss -ltnp 'sport = :${stack.port}'`);
      expect(alert?.fix).toContain('punchgate keeps trying');
      expect(status.alerts.some((a) => a.startsWith('the push terminal receiver cannot listen'))).toBe(true);
      for (const t of status.terminals) {
        expect(t.online, t.name).toBe(false);
        expect(t.problem?.cause, t.name).toContain('the push terminal receiver cannot listen');
      }
      expect(status.listeners).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ listener: 'push', listen, up: false, code: 'EADDRINUSE' }),
          expect.objectContaining({ listener: 'status', up: true, code: null }),
        ]),
      );
      const served = JSON.parse((await get('/status.json')).body) as StatusJson;
      expect(served.alertItems.map((a) => a.kind)).toContain('push-not-listening');
      expect(await metric()).toBe('punchgate_listener_up{listener="push"} 0');
      expect((await get('/metrics')).body).toContain('punchgate_listener_up{listener="status"} 1');
      const ready = await get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toContain(`the push terminal receiver cannot listen on ${listen} (EADDRINUSE)`);
      const text = (await runPunchgate(['--config', stack.configPath, 'status'])).stdout;
      expect(text).toContain(`the push terminal receiver cannot listen on ${listen}`);
      // `check` does not take the other program's answer on the port for the receiver.
      const check = await runPunchgate(['--config', stack.configPath, 'check']);
      expect(check.stdout).toMatch(/adms receiver.*the push terminal receiver cannot listen on 127\.0\.0\.1:\d+ since/);
      expect(check.stdout).not.toContain(`listening on ${listen}`);

      // The other program goes: the receiver takes the port on its next try (backoff 1 s, 2 s, 4 s...).
      await release(blocker);
      blocker = undefined;
      await waitFor(() => /push terminal receiver listening/.test(d.output()), 40_000, 'the receiver listening');
      // Said at once (the daemon rewrites its status when the port is taken), not at the next interval only.
      await waitFor(
        async () => !(await cli()).alertItems.some((a) => a.kind === 'push-not-listening'),
        20_000,
        'the alert gone from status --json',
      );
      expect(await metric()).toBe('punchgate_listener_up{listener="push"} 1');
      await waitFor(async () => (await get('/readyz')).status === 200, 20_000, '/readyz ready');

      // Both kinds of push terminal now reach it: every punch gets to the HRMS.
      const common = { server: stack.url, punches: 6, timeMode: 'sequence' as const, delayMs: 100, errorDelayMs: 100 };
      sims.push(startPushTerminalSim({ ...common, serial: 'LOBBY0001', users: users(0) }));
      sims.push(startPushTerminalSim({ ...common, serial: 'SECDOOR01', protocol: 'security', users: users(1) }));
      await waitFor(() => sims.every((s) => s.backlog() === 0), 30_000, 'both terminals uploaded');
      const expected = sims.reduce((n, s) => n + s.passes().length, 0);
      expect(expected).toBe(12);
      await waitFor(() => stack.hrms.attendance().length === expected, 30_000, 'every punch delivered');
      // Online again once their contacts are written (every few seconds).
      await waitFor(async () => (await cli()).terminals.every((t) => t.online), 20_000, 'both terminals online');
      const after = await cli();
      expect(after.listeners?.find((l) => l.listener === 'push')).toMatchObject({ up: true, downSince: null });
      expect((await runPunchgate(['--config', stack.configPath, 'check'])).stdout).toContain(`listening on ${listen}`);
    } finally {
      for (const s of sims) await s.stop();
      if (blocker) await release(blocker);
      await stopDaemon(d);
      await stack.stop();
    }
  }, 180_000);

  it('status.listen held by another program: `punchgate status` says the page is not served and why; punches are still collected', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'lobby', serial: 'LOBBY0001' }] });
    const statusPort = await freePort();
    const blocker = await holdPort(statusPort);
    // The same stack with the status page on the held port.
    const config = parse(readFileSync(stack.configPath, 'utf8')) as { status: Record<string, unknown> };
    config.status.listen = `127.0.0.1:${statusPort}`;
    // The default interval: the status log must say it at once, not a minute later at its next rewrite.
    config.status.intervalMs = 60_000;
    writeFileSync(stack.configPath, stringify(config));
    const d = spawnDaemon(stack.configPath);
    const sim = startPushTerminalSim({
      server: stack.url,
      serial: 'LOBBY0001',
      punches: 3,
      timeMode: 'sequence',
      delayMs: 100,
      errorDelayMs: 100,
    });
    try {
      await waitFor(() => stack.hrms.attendance().length === 3, 30_000, 'the punches delivered');
      const written = () => readFileSync(stack.tmp.path('status.json'), 'utf8');
      await waitFor(() => written().includes('status-not-listening'), 10_000, 'the alert in status.json at once');
      const status = JSON.parse(
        (await runPunchgate(['--config', stack.configPath, 'status', '--json'])).stdout,
      ) as StatusJson;
      const alert = status.alertItems.find((a) => a.kind === 'status-not-listening');
      expect(alert?.cause).toContain(`the status page cannot listen on 127.0.0.1:${statusPort}`);
      expect(alert?.cause).toContain('the page, /status.json, /metrics and /readyz are not served');
      expect(alert?.fix).toContain(`ss -ltnp 'sport = :${statusPort}'`);
      expect(status.alertItems.map((a) => a.kind)).not.toContain('push-not-listening');
      expect(status.terminals[0]?.problem?.cause ?? '').not.toContain('receiver');
      // Freed: the page is served on its next try, and says nothing of it any more.
      await release(blocker);
      // Its tries come after 5 s, 10 s more, 20 s more...
      await waitFor(() => /status page on http/.test(d.output()), 60_000, 'the status page listening');
      const page = await statusUrl(d);
      await waitFor(
        async () => {
          const r = await fetch(new URL('/status.json', page));
          return !(await r.text()).includes('status-not-listening');
        },
        10_000,
        'the alert gone',
      );
      // ...and from the status log, which `punchgate status` reads, at once too.
      await waitFor(() => !written().includes('status-not-listening'), 10_000, 'the alert gone from status.json');
    } finally {
      await sim.stop();
      if (blocker.listening) await release(blocker);
      await stopDaemon(d);
      await stack.stop();
    }
  }, 120_000);
});
