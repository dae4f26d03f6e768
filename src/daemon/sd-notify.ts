/**
 * The sd_notify protocol (systemd Type=notify) on the optional `unix-dgram` module:
 * READY, STOPPING, RELOADING, STATUS and WATCHDOG datagrams to `$NOTIFY_SOCKET`.
 * Without NOTIFY_SOCKET every call is a no-op, so the same daemon runs by hand, in Docker
 * and under systemd. A box where `unix-dgram` could not be built still runs; it only cannot
 * tell systemd it is ready (logged once, loudly: a Type=notify unit would time out).
 */
import { createRequire } from 'node:module';

/** What we use of `unix-dgram` (it ships no types). */
export interface UnixDgramSocket {
  send(buf: Buffer, offset: number, length: number, path: string, callback: (err?: Error) => void): void;
  close(): void;
}
export interface UnixDgramModule {
  createSocket(type: 'unix_dgram', listener?: (msg: Buffer) => void): UnixDgramSocket;
}

/** The two log calls the notifier makes; a pino Logger fits. */
export interface NotifyLogger {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface Notifier {
  /** True when NOTIFY_SOCKET is set, usable, and unix-dgram loaded: messages are really sent. */
  readonly active: boolean;
  /** READY=1 (plus STATUS= when given): systemd considers the start finished. */
  ready(status?: string): void;
  /** RELOADING=1 with MONOTONIC_USEC (SIGHUP): follow with ready() when the new config is in force. */
  reloading(): void;
  /** STOPPING=1: the first thing to send on SIGTERM. */
  stopping(status?: string): void;
  /** WATCHDOG=1: call only when the pipeline made progress, at least every watchdogIntervalMs(). */
  watchdog(): void;
  /**
   * EXTEND_TIMEOUT_USEC (plus STATUS=): the start, or whatever systemd waits for, may take `ms`
   * more from now (a journal's schema upgrade at the first start of a new version).
   */
  extendTimeout(ms: number, status: string): void;
  /** STATUS=...: one line shown by `systemctl status`. */
  status(text: string): void;
  /** Half of WATCHDOG_USEC in ms when the watchdog is on for this process, else null. */
  watchdogIntervalMs(): number | null;
  /** Later calls become no-ops. Nothing stays open between messages, so this is not needed to exit. */
  close(): void;
}

export interface NotifierOptions {
  /** Loads unix-dgram; tests replace it. Default: loadUnixDgram(). */
  load?: () => UnixDgramModule;
  /** This process's pid, compared with WATCHDOG_PID; default process.pid. */
  pid?: number;
}

/** Loads the optional native module; throws when it is not installed or not built for this Node. */
export function loadUnixDgram(): UnixDgramModule {
  // createRequire keeps this synchronous and lets a box without the module start at all.
  return createRequire(import.meta.url)('unix-dgram') as UnixDgramModule;
}

/** Whether sd_notify can work on this box: the module loads. Used by `punchgate check`. */
export function unixDgramAvailable(
  load: () => UnixDgramModule = loadUnixDgram,
): { ok: true } | { ok: false; error: string } {
  try {
    load();
    return { ok: true };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message.split('\n')[0]! : String(e) };
  }
}

const quietLogger: NotifyLogger = { warn: () => {}, debug: () => {} };

export function createNotifier(
  env: NodeJS.ProcessEnv = process.env,
  logger: NotifyLogger = quietLogger,
  options: NotifierOptions = {},
): Notifier {
  const socketPath = env.NOTIFY_SOCKET?.trim() || undefined;
  const pid = options.pid ?? process.pid;
  const dgram = socketPath ? openModule(socketPath, logger, options.load ?? loadUnixDgram) : undefined;
  let closed = false;
  let failuresLogged = 0;

  const send = (message: string): void => {
    if (!dgram || !socketPath || closed) return;
    const buf = Buffer.from(message, 'utf8');
    const onError = (err: unknown) => {
      // A lost datagram is not fatal (the next one may pass); say so without flooding the log.
      const detail = { socket: socketPath, message: message.split('\n')[0], err: describeSendError(err) };
      if (failuresLogged++ < 3) logger.warn(detail, 'could not send a notification to systemd');
      else logger.debug(detail, 'could not send a notification to systemd');
    };
    // One socket per message: sendto is synchronous in unix-dgram, and a socket left open
    // would keep the event loop alive after the daemon has finished.
    let socket: UnixDgramSocket;
    try {
      socket = dgram.createSocket('unix_dgram');
    } catch (e) {
      onError(e);
      return;
    }
    try {
      socket.send(buf, 0, buf.length, socketPath, (err) => {
        if (err) onError(err);
      });
    } catch (e) {
      onError(e);
    } finally {
      try {
        socket.close();
      } catch {
        // closing a datagram socket cannot lose anything
      }
    }
  };

  return {
    active: dgram !== undefined,
    ready: (status) => send(status === undefined ? 'READY=1' : `READY=1\nSTATUS=${oneLine(status)}`),
    reloading: () => send(`RELOADING=1\nMONOTONIC_USEC=${process.hrtime.bigint() / 1000n}`),
    stopping: (status) => send(status === undefined ? 'STOPPING=1' : `STOPPING=1\nSTATUS=${oneLine(status)}`),
    watchdog: () => send('WATCHDOG=1'),
    extendTimeout: (ms, status) =>
      send(`EXTEND_TIMEOUT_USEC=${Math.max(0, Math.round(ms)) * 1000}\nSTATUS=${oneLine(status)}`),
    status: (text) => send(`STATUS=${oneLine(text)}`),
    watchdogIntervalMs: () => (dgram ? watchdogInterval(env, pid) : null),
    close: () => {
      closed = true;
    },
  };
}

/** WATCHDOG_USEC / 2 in ms, as sd_watchdog_enabled() reads it (WATCHDOG_PID must be ours when set). */
export function watchdogInterval(env: NodeJS.ProcessEnv, pid: number = process.pid): number | null {
  const usecText = env.WATCHDOG_USEC?.trim();
  if (!usecText || !/^\d+$/.test(usecText)) return null;
  const usec = Number(usecText);
  if (!Number.isSafeInteger(usec) || usec <= 0) return null;
  const pidText = env.WATCHDOG_PID?.trim();
  if (pidText && Number(pidText) !== pid) return null;
  return Math.max(1, Math.floor(usec / 2000));
}

function openModule(
  socketPath: string,
  logger: NotifyLogger,
  load: () => UnixDgramModule,
): UnixDgramModule | undefined {
  if (socketPath.startsWith('@')) {
    // unix-dgram copies the address with strncpy and passes sizeof(sockaddr_un) as its length,
    // so it cannot name an abstract socket: a datagram would go to a different (all-zero) name.
    // systemd itself always hands out a path (/run/systemd/notify); only other managers use '@'.
    logger.warn(
      { socket: socketPath },
      'NOTIFY_SOCKET names an abstract socket, which unix-dgram cannot address: readiness and watchdog are not reported (use a path socket, or a unit without Type=notify)',
    );
    return undefined;
  }
  if (!socketPath.startsWith('/')) {
    logger.warn({ socket: socketPath }, 'NOTIFY_SOCKET is not an absolute path: notifications are not sent');
    return undefined;
  }
  try {
    return load();
  } catch (e) {
    logger.warn(
      { err: e instanceof Error ? e.message.split('\n')[0] : String(e) },
      'NOTIFY_SOCKET is set but the optional module unix-dgram is not installed: systemd is not told that punchgate is ready (reinstall punchgate with build tools: apt-get install build-essential python3)',
    );
    return undefined;
  }
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').trim();
}

/** unix-dgram reports a negative errno as `code`; name the usual ones. */
function describeSendError(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const names: Record<number, string> = {
    [-2]: 'ENOENT',
    [-13]: 'EACCES',
    [-111]: 'ECONNREFUSED',
    [-11]: 'EAGAIN',
    1: 'congestion',
  };
  if (typeof code === 'number' && names[code]) return names[code];
  return err instanceof Error ? err.message : String(err);
}
