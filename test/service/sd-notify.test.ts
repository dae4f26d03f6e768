import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createNotifier,
  unixDgramAvailable,
  watchdogInterval,
  type NotifyLogger,
  type UnixDgramModule,
} from '../../src/daemon/sd-notify.js';
import { tempDir } from '../helpers/tmp.js';

/** The server side of unix-dgram, which the notifier itself never uses. */
interface DgramServer {
  bind(path: string): void;
  close(): void;
  on(ev: 'error', fn: (e: Error) => void): void;
}
const dgram = createRequire(import.meta.url)('unix-dgram') as UnixDgramModule;
const bindServer = (listener: (msg: Buffer) => void) =>
  dgram.createSocket('unix_dgram', listener) as unknown as DgramServer;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** A stand-in for systemd's notify socket: a real unix datagram socket bound in a temp dir. */
function notifySocket(): { path: string; messages: string[]; next: (n: number) => Promise<string[]> } {
  const dir = tempDir('punchgate-notify-');
  const path = join(dir.dir, 'notify');
  const messages: string[] = [];
  const server = bindServer((msg) => messages.push(msg.toString('utf8')));
  server.on('error', (e) => {
    throw e;
  });
  server.bind(path);
  cleanups.push(dir.cleanup, () => server.close());
  const next = async (n: number) => {
    // Generous: a loaded CI box may take seconds to deliver a datagram to this process.
    const deadline = Date.now() + 20_000;
    while (messages.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    return messages.slice(0, n);
  };
  return { path, messages, next };
}

function captureLogger(): NotifyLogger & { warns: string[]; debugs: string[] } {
  const warns: string[] = [];
  const debugs: string[] = [];
  return {
    warns,
    debugs,
    warn: (obj, msg) => warns.push(`${msg} ${JSON.stringify(obj)}`),
    debug: (obj, msg) => debugs.push(`${msg} ${JSON.stringify(obj)}`),
  };
}

describe('sd_notify over a real unix datagram socket', () => {
  it('sends READY, STATUS, WATCHDOG, RELOADING and STOPPING datagrams', async () => {
    const sock = notifySocket();
    const log = captureLogger();
    const n = createNotifier({ NOTIFY_SOCKET: sock.path }, log);
    expect(n.active).toBe(true);
    n.ready('2 terminals,\n0 pending');
    n.watchdog();
    n.status('HRMS refuses the token');
    n.reloading();
    n.stopping();
    const got = await sock.next(5);
    expect(got[0]).toBe('READY=1\nSTATUS=2 terminals, 0 pending');
    expect(got[1]).toBe('WATCHDOG=1');
    expect(got[2]).toBe('STATUS=HRMS refuses the token');
    expect(got[3]).toMatch(/^RELOADING=1\nMONOTONIC_USEC=\d+$/);
    expect(got[4]).toBe('STOPPING=1');
    expect(log.warns).toEqual([]);
  });

  it('sends nothing after close()', async () => {
    const sock = notifySocket();
    const n = createNotifier({ NOTIFY_SOCKET: sock.path });
    n.ready();
    await sock.next(1);
    n.close();
    n.watchdog();
    n.stopping();
    await new Promise((r) => setTimeout(r, 50));
    expect(sock.messages).toEqual(['READY=1']);
  });

  it('survives a socket that went away, warning a few times and then quietly', () => {
    const dir = tempDir('punchgate-notify-');
    cleanups.push(dir.cleanup);
    const log = captureLogger();
    const n = createNotifier({ NOTIFY_SOCKET: join(dir.dir, 'gone') }, log);
    expect(n.active).toBe(true);
    for (let i = 0; i < 5; i++) expect(() => n.watchdog()).not.toThrow();
    expect(log.warns).toHaveLength(3);
    expect(log.warns[0]).toContain('ENOENT');
    expect(log.debugs).toHaveLength(2);
  });

  it('does not keep the process alive: a child that notified exits by itself', async () => {
    const sock = notifySocket();
    const script = `
      const { createNotifier } = await import(${JSON.stringify(join(process.cwd(), 'dist/src/daemon/sd-notify.js'))});
      const n = createNotifier(process.env);
      n.ready(); n.watchdog(); n.stopping();
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NOTIFY_SOCKET: sock.path },
      timeout: 10_000,
      encoding: 'utf8',
    });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(await sock.next(3)).toEqual(['READY=1', 'WATCHDOG=1', 'STOPPING=1']);
  });
});

describe('sd_notify no-op and degraded paths', () => {
  it('without NOTIFY_SOCKET does nothing and never loads unix-dgram', () => {
    let loads = 0;
    const n = createNotifier({ WATCHDOG_USEC: '60000000' }, undefined, {
      load: () => {
        loads++;
        return dgram;
      },
    });
    expect(n.active).toBe(false);
    expect(() => {
      n.ready('x');
      n.watchdog();
      n.status('y');
      n.reloading();
      n.stopping();
      n.close();
    }).not.toThrow();
    expect(n.watchdogIntervalMs()).toBeNull();
    expect(loads).toBe(0);
  });

  it('without unix-dgram runs on, saying once why systemd will not hear from it', () => {
    const log = captureLogger();
    const n = createNotifier({ NOTIFY_SOCKET: '/run/systemd/notify', WATCHDOG_USEC: '60000000' }, log, {
      load: () => {
        throw new Error("Cannot find module 'unix-dgram'");
      },
    });
    expect(n.active).toBe(false);
    expect(() => n.ready()).not.toThrow();
    expect(n.watchdogIntervalMs()).toBeNull();
    expect(log.warns).toHaveLength(1);
    expect(log.warns[0]).toContain('unix-dgram is not installed');
    expect(
      unixDgramAvailable(() => {
        throw new Error('gone\nstack');
      }),
    ).toEqual({ ok: false, error: 'gone' });
    expect(unixDgramAvailable()).toEqual({ ok: true });
  });

  it('an abstract socket (@name) is reported, not sent to a wrong address', () => {
    const log = captureLogger();
    let loads = 0;
    const n = createNotifier({ NOTIFY_SOCKET: '@punchgate/notify' }, log, {
      load: () => {
        loads++;
        return dgram;
      },
    });
    expect(n.active).toBe(false);
    n.ready();
    expect(loads).toBe(0);
    expect(log.warns.join('\n')).toContain('abstract socket');
  });

  it('a relative NOTIFY_SOCKET is refused', () => {
    const log = captureLogger();
    expect(createNotifier({ NOTIFY_SOCKET: 'notify' }, log).active).toBe(false);
    expect(log.warns[0]).toContain('not an absolute path');
  });
});

describe('watchdog interval', () => {
  it('is half of WATCHDOG_USEC in ms, only for the process named by WATCHDOG_PID', () => {
    expect(watchdogInterval({ WATCHDOG_USEC: '60000000' }, 42)).toBe(30_000);
    expect(watchdogInterval({ WATCHDOG_USEC: '60000000', WATCHDOG_PID: '42' }, 42)).toBe(30_000);
    expect(watchdogInterval({ WATCHDOG_USEC: '60000000', WATCHDOG_PID: '43' }, 42)).toBeNull();
    expect(watchdogInterval({}, 42)).toBeNull();
    expect(watchdogInterval({ WATCHDOG_USEC: '0' }, 42)).toBeNull();
    expect(watchdogInterval({ WATCHDOG_USEC: 'soon' }, 42)).toBeNull();
    expect(watchdogInterval({ WATCHDOG_USEC: '1500' }, 42)).toBe(1);
  });

  it('is reported by an active notifier and honours WATCHDOG_PID', () => {
    const sock = notifySocket();
    expect(createNotifier({ NOTIFY_SOCKET: sock.path, WATCHDOG_USEC: '20000000' }).watchdogIntervalMs()).toBe(10_000);
    expect(
      createNotifier({ NOTIFY_SOCKET: sock.path, WATCHDOG_USEC: '20000000', WATCHDOG_PID: '1' }, undefined, {
        pid: 2,
      }).watchdogIntervalMs(),
    ).toBeNull();
    expect(
      createNotifier({
        NOTIFY_SOCKET: sock.path,
        WATCHDOG_USEC: '20000000',
        WATCHDOG_PID: String(process.pid),
      }).watchdogIntervalMs(),
    ).toBe(10_000);
    expect(createNotifier({ NOTIFY_SOCKET: sock.path }).watchdogIntervalMs()).toBeNull();
  });
});
