import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parseListen } from '../config/listen.js';
import type { StatusConfig } from '../config/schema.js';
import { Backoff } from '../util/backoff.js';
import { errorCode } from '../util/errors.js';
import { ListenerTrouble, type ListenerFact } from '../util/listener-fact.js';
import type { Logger } from '../util/logger.js';
import type { Secrets } from '../util/secrets.js';
import { StatusAuth } from './auth.js';
import { ConnectionBounds, STATUS_CONNECTION_LIMITS } from './connection-bounds.js';
import { hostGuard } from './host-check.js';
import { handleRequest, type RouteDeps } from './routes.js';

export interface StatusServerDeps extends Omit<RouteDeps, 'allows' | 'logger'> {
  /** The running config's `status` section (it changes on reload). */
  config: () => StatusConfig;
  logger: Logger;
  secrets: Secrets;
  /** The clock's now (epoch ms): when a listen failed. */
  now?: () => number;
  /**
   * Called when `status.listen` cannot be taken after it could (or at the first try), and when it
   * is taken after failing: the daemon rewrites its status log at once, so that `punchgate status`
   * says the page is not served within seconds, not at the next `status.intervalMs`.
   */
  onListenChange?: () => void;
}

/** Retries of a listen that failed (the address is not up yet at boot, the port is taken). */
const RETRY = { baseMs: 5_000, maxMs: 300_000 };

/**
 * The status page's HTTP server inside `punchgate run`: `status.listen`, with the token of
 * `status.authTokenFile` when set. It sits beside the punch line: a port that cannot be
 * opened is logged and retried, never a reason to stop collecting punches.
 */
export class StatusServer {
  private server: Server | undefined;
  private listening: { key: string; url: string } | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly retry = new Backoff(RETRY, false);
  /** Whether `status.listen` could not be taken, since when, and the next try (`punchgate status` says so). */
  private readonly trouble = new ListenerTrouble();
  private stopped = false;

  constructor(private readonly d: StatusServerDeps) {}

  /** The address it listens on, once it does (tests use port 0). */
  url(): string | undefined {
    return this.listening?.url;
  }

  /** Whether it listens on `status.listen` now (none when that is false, or before its first try). */
  listenerFact(): ListenerFact | undefined {
    const listen = this.d.config().listen;
    // Not tried yet (the daemon writes its first status before it opens the page): nothing to say.
    if (listen === false || (!this.listening && !this.trouble.failing)) return undefined;
    return this.trouble.fact('status', listen, this.listening !== undefined);
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.open();
  }

  /** After a config reload: listens again if `status.listen` or the token file changed. */
  async reload(): Promise<void> {
    if (this.listening?.key === key(this.d.config()) || (this.server && !this.listening)) return;
    await this.close();
    this.retry.reset();
    // A new status.listen is tried afresh: a failure of the old one is not its history.
    this.trouble.listening();
    await this.open();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.close();
  }

  private async open(): Promise<void> {
    clearTimeout(this.retryTimer);
    const cfg = this.d.config();
    if (cfg.listen === false || this.stopped) return;
    const at = parseListen(cfg.listen);
    if (typeof at === 'string') return; // the config check refused it already
    const auth = cfg.authTokenFile ? new StatusAuth(cfg.authTokenFile, this.d) : undefined;
    auth?.look();
    const routes: RouteDeps = {
      ...this.d,
      ...(auth ? { allows: (h) => auth.allows(h) } : { hostAllowed: hostGuard(at, cfg.allowedHosts, this.d.logger) }),
    };
    // Idle and slow clients are closed within seconds (checked every second, not Node's 30 s),
    // and the LAN cannot take the box's own connections (connection-bounds.ts).
    const bounds = new ConnectionBounds(STATUS_CONNECTION_LIMITS);
    const server = createServer(
      { requestTimeout: 10_000, headersTimeout: 5_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 },
      (req, res) => {
        bounds.busy(req.socket, true);
        res.once('close', () => bounds.busy(req.socket, false));
        void handleRequest(req, res, routes);
      },
    );
    server.on('connection', (socket: Socket) => bounds.admit(socket));
    // Only a backstop: ConnectionBounds decides who goes (Node would refuse the box itself too).
    const l = STATUS_CONNECTION_LIMITS;
    server.maxConnections = l.loopback + l.lan + l.perAddress + 8;
    server.on('clientError', (_e, socket) => socket.destroy());
    this.server = server;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(at.port, at.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (e) {
      this.server = undefined;
      this.failed(cfg.listen, e);
      return;
    }
    server.on('error', (e) => this.d.logger.warn({ err: e.message }, 'status page server error'));
    const port = (server.address() as AddressInfo).port;
    const url = `http://${at.host.includes(':') ? `[${at.host}]` : at.host}:${port}/`;
    this.listening = { key: key(cfg), url };
    this.retry.reset();
    const wasFailing = this.trouble.listening();
    this.d.logger.info(
      { url, auth: auth ? 'token' : 'none' },
      `status page on ${url} (also /status.json, /metrics, /livez, /readyz)`,
    );
    if (wasFailing) this.d.onListenChange?.();
  }

  private failed(listen: string, e: unknown): void {
    const code = errorCode(e);
    const why =
      code === 'EADDRINUSE'
        ? 'the port is in use (another punchgate or another program): set status.listen to another HOST:PORT, or false'
        : code === 'EADDRNOTAVAIL'
          ? 'this box has no such address (yet): check status.listen'
          : code === 'EACCES'
            ? 'ports below 1024 need privileges: use a port above 1024'
            : (e as Error).message;
    const delayMs = this.retry.next();
    const first = !this.trouble.failing;
    this.trouble.failed(this.d.now?.() ?? Date.now(), code ?? null, delayMs);
    this.d.logger.error(
      { listen, code, retryInSeconds: Math.round(delayMs / 1000) },
      `status page not served on ${listen}: ${why}; punches are collected and delivered as usual`,
    );
    this.retryTimer = setTimeout(() => void this.open(), delayMs);
    this.retryTimer.unref();
    if (first) this.d.onListenChange?.();
  }

  private async close(): Promise<void> {
    clearTimeout(this.retryTimer);
    const server = this.server;
    this.server = undefined;
    this.listening = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

function key(c: StatusConfig): string {
  return JSON.stringify([c.listen, c.authTokenFile ?? null]);
}
