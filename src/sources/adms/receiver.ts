import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { admsListenAddress, pushOfflineAfterMs, type AdmsConfig } from '../../config/adms.js';
import type { AdmsTerminalConfig } from '../../config/terminals.js';
import { NO_SERIAL, SPEAKS_TLS, type PushJournal, type SourceStateStore } from '../../journal/types.js';
import { Backoff } from '../../util/backoff.js';
import type { Clock } from '../../util/clock.js';
import { errorCode } from '../../util/errors.js';
import type { FileHandleShortage } from '../../util/file-limit.js';
import { ListenerTrouble, type ListenerFact } from '../../util/listener-fact.js';
import type { Logger } from '../../util/logger.js';
import { listenKey, type ListenEndpoint, type ListenRegistry } from '../listen.js';
import type { PushTerminalRegistry } from '../types.js';
import { ContactBook } from './contacts.js';
import { normalizeAddress, TerminalDirectory } from './directory.js';
import { GroupCommit } from './group-commit.js';
import { KeptAger } from './kept-ager.js';
import { REFUSAL_TOPICS } from './notes.js';
import { RepeatedUploads } from './repeats.js';
import { answer, BodyBudget } from './http-body.js';
import { RegistrationBook } from './handler-kit.js';
import {
  handleDeviceCmd,
  handleGetRequest,
  handleOptions,
  handlePing,
  handleQueryData,
  handleUpload,
  type PushRequest,
  type ReceiverContext,
} from './protocol.js';
import { checkCookie, handlePushConfig, handleRegistry } from './security-handlers.js';
import { handleRtdata } from './server-time.js';
import { TrustGate } from './trust-gate.js';
import { UnknownPaths } from './unknown-paths.js';
import { isTlsHandshake, UnreadableRequests, type ParserError } from './unreadable-requests.js';
import { protocolQuery } from './query-keys.js';

export interface AdmsReceiverOptions {
  settings: AdmsConfig;
  journal: PushJournal;
  logger: Logger;
  clock: Clock;
  /** Called after new punches were journalled (wakes delivery). */
  onPunches?: (added: number) => void;
  /** How often contacts and refusals are written to the journal. */
  flushMs?: number;
  /** Called when it starts or stops being able to listen (the status says so at once). */
  onListenChange?: () => void;
  /** Where notes for the status are kept (an upload refused as too large); absent: logged only. */
  notes?: SourceStateStore;
  /** `settings` hold lower connection bounds than configured, for the file handle limit (daemon/file-handles.ts). */
  fileHandles?: FileHandleShortage;
}

type Handler = (ctx: ReceiverContext, p: PushRequest) => void | Promise<void>;

/** The protocol's paths (a `.aspx` suffix, which some firmware adds, is ignored) and their methods. */
const ROUTES: Record<string, { methods: readonly string[]; handler: Handler }> = {
  '/iclock/cdata': {
    methods: ['GET', 'POST'],
    handler: (ctx, p) => (p.req.method === 'GET' ? handleOptions(ctx, p) : handleUpload(ctx, p)),
  },
  '/iclock/getrequest': {
    methods: ['GET'],
    handler: (ctx, p) => {
      checkCookie(ctx, p);
      handleGetRequest(ctx, p);
    },
  },
  '/iclock/devicecmd': {
    methods: ['POST'],
    handler: (ctx, p) => {
      checkCookie(ctx, p);
      return handleDeviceCmd(ctx, p);
    },
  },
  '/iclock/ping': { methods: ['GET'], handler: handlePing },
  '/iclock/rtdata': { methods: ['GET'], handler: handleRtdata },
  '/iclock/registry': { methods: ['POST'], handler: handleRegistry },
  '/iclock/push': { methods: ['GET', 'POST'], handler: handlePushConfig },
  '/iclock/querydata': { methods: ['POST'], handler: handleQueryData },
  '/iclock/fdata': { methods: ['POST'], handler: handleQueryData },
};

/** Every path and method the receiver answers (tests send each from a stranger: none may get past the trust gate). */
export const PUSH_ROUTES: readonly { path: string; methods: readonly string[] }[] = Object.entries(ROUTES).map(
  ([path, r]) => ({ path, methods: r.methods }),
);

const SERIAL = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The protocol path of a request: from its last `/iclock/` on, lower case, without the `.aspx`
 * some firmware adds. A terminal appends `/iclock/cdata` to its server address as the admin typed
 * it: an address that already ends in `/iclock` (a real unit did exactly this, per a published
 * server's test) or has a path of its own asks `/iclock/iclock/cdata` or `/attendance/iclock/cdata`,
 * and was answered 404 with no word, the terminal offline for no reason anyone could see.
 */
function protocolPath(pathname: string): string {
  const path = pathname.replace(/\.aspx$/i, '').toLowerCase();
  const at = path.lastIndexOf('/iclock/');
  return at > 0 ? path.slice(at) : path;
}
/** Bodies held in memory at once, all terminals together. */
const BODY_BUDGET_FACTOR = 32;
const FLUSH_MS = 5000;
/** How long a stop waits for requests under way before closing their connections. */
const STOP_GRACE_MS = 5000;

/**
 * The one HTTP receiver of all push terminals (ZKTeco ADMS / iclock). Each push terminal's
 * source registers its terminal here (by serial number); the server runs as long as the daemon,
 * so terminals come and go (SIGHUP) without dropping anyone's connection.
 *
 * The port is open to the LAN: bodies are capped and share one memory budget, slow clients are
 * timed out, connections are bounded (in all and per address), and nothing but the protocol's
 * paths is answered.
 */
export class AdmsReceiver implements PushTerminalRegistry, ListenRegistry {
  private settings: AdmsConfig;
  private readonly directory = new TerminalDirectory();
  /** Terminals that post in their own format (Hikvision HTTP Listening), by path: each checks its own sender. */
  private readonly listened = new Map<string, ListenEndpoint>();
  private readonly unknownPaths: UnknownPaths;
  private readonly unreadable: UnreadableRequests;
  private readonly contacts: ContactBook;
  /** The age bound of kept uploads, held between uploads too. */
  private readonly keptAger: KeptAger;
  private readonly ctx: ReceiverContext;
  /** Every request of a configured serial passes here before any handler: only its terminal changes its state. */
  private readonly gate: TrustGate;
  private server: Server | undefined;
  /** Open connections by address, oldest first. */
  private readonly perAddress = new Map<string, Set<Socket>>();
  private connections = 0;
  /** The address each open connection came from (a destroyed socket no longer says). */
  private readonly addressOf = new WeakMap<Socket, string>();
  /** Connections serving a request now: never taken away for a newcomer's sake unless their address is the greediest. */
  private readonly busy = new WeakSet<Socket>();
  /** When each open connection came (the oldest idle one goes first). */
  private readonly openedAt = new WeakMap<Socket, number>();
  private opened = 0;
  private readonly inflight = new Set<Promise<void>>();
  private flushTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly listenBackoff = new Backoff({ baseMs: 1000, maxMs: 60_000 }, false);
  /** Whether `adms.listen` could not be taken, since when, and the next try (the status's alert). */
  private readonly listenTrouble = new ListenerTrouble();
  private stopped = false;
  private bound: { host: string; port: number } | undefined;

  constructor(private readonly opts: AdmsReceiverOptions) {
    this.settings = opts.settings;
    this.contacts = new ContactBook(opts.journal, opts.clock, opts.logger, () => this.offlineAfterMs());
    this.ctx = {
      journal: opts.journal,
      commits: new GroupCommit(opts.journal),
      directory: this.directory,
      contacts: this.contacts,
      registrations: new RegistrationBook(opts.journal, opts.clock),
      budget: new BodyBudget(opts.settings.maxBodyBytes * BODY_BUDGET_FACTOR),
      bodyFollows: new WeakSet(),
      repeats: new RepeatedUploads(),
      logger: opts.logger,
      clock: opts.clock,
      settings: () => this.settings,
      onPunches: opts.onPunches,
      ...(opts.notes
        ? {
            notes: opts.notes,
            refused: Object.fromEntries(REFUSAL_TOPICS.map((t) => [t, new Map()])) as ReceiverContext['refused'],
          }
        : {}),
    };
    this.gate = new TrustGate(this.ctx.registrations, opts.clock, opts.logger);
    this.keptAger = new KeptAger(opts.journal, opts.clock, opts.logger, () => this.settings);
    this.unknownPaths = new UnknownPaths(opts.logger);
    this.unreadable = new UnreadableRequests(opts.logger);
  }

  /** No contact for this long: offline. */
  offlineAfterMs(): number {
    return pushOfflineAfterMs(this.settings);
  }

  /** Connections open now (all addresses). */
  openConnections(): number {
    return this.connections;
  }

  /** Where it listens, once it does. */
  address(): { host: string; port: number } | undefined {
    return this.bound;
  }

  /** Whether it listens on `adms.listen` now, and if not since when and why (status, /metrics, /readyz). */
  listenerFact(): ListenerFact {
    const fact = this.listenTrouble.fact('push', this.settings.listen, this.bound !== undefined);
    return this.opts.fileHandles ? { ...fact, fileHandles: this.opts.fileHandles } : fact;
  }

  /**
   * Starts listening on `adms.listen`. When the port cannot be taken (in use, no permission),
   * says so and keeps trying with backoff: the other terminals are collected meanwhile.
   */
  async start(): Promise<{ host: string; port: number } | undefined> {
    try {
      this.contacts.load();
    } catch (e) {
      this.opts.logger.warn({ err: (e as Error).message }, 'could not read the last push terminal contacts');
    }
    this.flushTimer = setInterval(() => {
      this.contacts.flush();
      this.ctx.registrations.flush();
      this.keptAger.tick();
    }, this.opts.flushMs ?? FLUSH_MS);
    this.flushTimer.unref();
    await this.listen();
    return this.bound;
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const where = admsListenAddress(this.settings);
    const server = this.createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host: where.host, port: where.port }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (e) {
      if (this.stopped) return;
      const delay = this.listenBackoff.next();
      const code = errorCode(e) ?? null;
      const first = this.listenBackoff.failures === 1;
      this.listenTrouble.failed(this.opts.clock.now(), code, delay);
      this.opts.logger.error(
        { listen: this.settings.listen, err: (e as Error).message, retryInMs: delay },
        `the push terminal receiver cannot listen on ${this.settings.listen}: ${code ?? (e as Error).message} (another program on that port, or a port below 1024 without permission); trying again`,
      );
      this.retryTimer = setTimeout(() => void this.listen(), delay);
      this.retryTimer.unref();
      if (first) this.opts.onListenChange?.();
      return;
    }
    if (this.stopped) {
      server.close();
      return;
    }
    this.listenBackoff.reset();
    server.on('error', (e) => this.opts.logger.error({ err: e.message }, 'push terminal receiver error'));
    this.server = server;
    const a = server.address() as AddressInfo;
    this.bound = { host: a.address, port: a.port };
    // Its terminals are added as their sources start, after this: each says so in its own line.
    this.opts.logger.info({ listen: `${a.address}:${a.port}` }, 'push terminal receiver listening');
    if (this.listenTrouble.listening()) this.opts.onListenChange?.();
  }

  private createServer(): Server {
    const s = this.settings;
    const server = createServer(
      {
        requestTimeout: s.requestTimeoutMs,
        headersTimeout: Math.min(10_000, s.requestTimeoutMs),
        // Terminals poll every Delay seconds: keep their connection open between two polls.
        keepAliveTimeout: Math.min(120_000, Math.max(5000, 2 * s.delay * 1000 + 5000)),
        connectionsCheckingInterval: 1000,
        maxHeaderSize: 16 * 1024,
        requireHostHeader: false,
        noDelay: true,
      },
      (req, res) => this.onRequest(req, res),
    );
    // The receiver decides which connection goes when all are taken (onConnection); this is only a backstop.
    server.maxConnections = s.maxConnections + s.maxConnectionsPerAddress;
    server.maxHeadersCount = 64;
    // A client that shuts its sending side once its request is sent (an embedded HTTP client with
    // `Connection: close` may) is still answered: Node's default ends such a connection at once, so
    // its upload was journalled, never acknowledged, and sent again for ever. Node's own switch for
    // it (set by its constructor, left out of its types); test/adms/body-length.test.ts holds it.
    (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
    // A connection that goes completely quiet (not even keep-alive traffic) is closed.
    server.timeout = Math.max(s.requestTimeoutMs, 2 * s.delay * 1000 + 10_000);
    server.on('connection', (socket: Socket) => this.onConnection(socket));
    server.on('clientError', (e, socket: Socket) => {
      // The body of an upload refused (411) before it came: the terminal was answered already.
      if (this.ctx.bodyFollows.has(socket)) return void socket.destroySoon();
      this.onUnreadable(e as ParserError, socket);
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      socket.destroy();
    });
    return server;
  }

  /**
   * Bounds the connections one address may hold, and shares them fairly when all are taken: a
   * new connection from an address holding fewer than the greediest one takes the oldest
   * connection of that one. So no address (a runaway device, an attacker holding slow
   * connections from many addresses) can keep a terminal from reaching the receiver.
   */
  private onConnection(socket: Socket): void {
    const address = normalizeAddress(socket.remoteAddress);
    const mine = this.perAddress.get(address) ?? new Set<Socket>();
    if (mine.size + 1 > this.settings.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    if (this.connections >= this.settings.maxConnections) {
      const gone = this.makeRoomFor(address, mine.size);
      if (!gone) {
        socket.destroy();
        return;
      }
      this.forget(gone);
      gone.destroy();
    }
    mine.add(socket);
    this.addressOf.set(socket, address);
    this.openedAt.set(socket, this.opened++);
    this.perAddress.set(address, mine);
    this.connections++;
    socket.once('close', () => this.forget(socket));
  }

  /**
   * All connections are taken and `address` (holding `held`) asks for one more: which one goes.
   * The oldest of the address holding the most, when that is more than `held + 1`; else, when
   * every address holds about as many (many addresses with one connection each, idle or half a
   * request), the oldest idle connection of an address holding more than `held`, as the status
   * server does (web/connection-bounds.ts): a terminal is never kept out by connections that
   * serve nothing, however many addresses hold them. Undefined: none may go, the newcomer is refused.
   */
  private makeRoomFor(address: string, held: number): Socket | undefined {
    let greediest: Set<Socket> | undefined;
    for (const [a, set] of this.perAddress) if (a !== address && set.size > (greediest?.size ?? 0)) greediest = set;
    if (greediest && greediest.size > held + 1) return greediest.values().next().value;
    let oldest: { socket: Socket; since: number } | undefined;
    for (const [a, set] of this.perAddress) {
      if (a === address || set.size <= held) continue;
      for (const s of set) {
        if (this.busy.has(s)) continue;
        const since = this.openedAt.get(s) ?? 0;
        if (!oldest || since < oldest.since) oldest = { socket: s, since };
        break;
      }
    }
    return oldest?.socket;
  }

  /**
   * A request Node's HTTP parser gave up on (answered 400 below): said, not dropped in silence.
   * A TLS handshake is a terminal with HTTPS on, kept with the refusals (the status says what to
   * switch off); other unreadable requests are logged. Timeouts and resets are not parse errors.
   */
  private onUnreadable(e: ParserError, socket: Socket): void {
    if (!e.code?.startsWith('HPE_')) return;
    const address = this.addressOf.get(socket) ?? normalizeAddress(socket.remoteAddress);
    if (isTlsHandshake(e.rawPacket)) this.contacts.refused(SPEAKS_TLS, address, 'unknown', null);
    // Bytes that came while a request was still unanswered (terminals send one at a time): they
    // follow its body, not a request of their own.
    else this.unreadable.seen(address, e, this.opts.clock.now(), this.busy.has(socket));
  }

  private forget(socket: Socket): void {
    const address = this.addressOf.get(socket) ?? '';
    const set = this.perAddress.get(address);
    if (!set?.delete(socket)) return;
    this.connections--;
    if (set.size === 0) this.perAddress.delete(address);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    this.busy.add(socket);
    res.once('close', () => this.busy.delete(socket));
    const done = this.route(req, res)
      .catch((e: unknown) => {
        this.opts.logger.error({ err: e instanceof Error ? e.message : String(e) }, 'push terminal request failed');
        answer(req, res, 500, 'ERROR');
      })
      .finally(() => this.inflight.delete(done));
    this.inflight.add(done);
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://push.invalid');
    } catch {
      return answer(req, res, 400, '');
    }
    const endpoint = this.listened.get(listenKey(url.pathname));
    if (endpoint) {
      if (req.method !== 'POST') return answer(req, res, 405, '');
      return endpoint.handle({ req, res, address: normalizeAddress(req.socket.remoteAddress) });
    }
    const route = ROUTES[protocolPath(url.pathname)];
    if (!route) {
      this.unknownPaths.seen(
        url.pathname,
        req.method ?? '',
        normalizeAddress(req.socket.remoteAddress),
        this.opts.clock.now(),
      );
      return answer(req, res, 404, '');
    }
    if (!route.methods.includes(req.method ?? '')) return answer(req, res, 405, '');
    const query = protocolQuery(url.searchParams);
    // Blanks around it are firmware's padding, not the serial (`SN=CQZ7232160007%20`): the servers
    // push firmware was made against strip them, and the case is not compared (directory.ts).
    const serial = (query.get('SN') ?? '').trim();
    const address = normalizeAddress(req.socket.remoteAddress);
    if (!SERIAL.test(serial)) {
      // Said in the log and the status as an unknown terminal is: a 400 alone left its admin nothing to see.
      this.contacts.refused(NO_SERIAL, address, 'unknown', null, serial);
      return answer(req, res, 400, 'ERROR: SN= missing or not a serial number');
    }
    const r = this.directory.resolve(serial, address, this.opts.clock.now());
    switch (r.kind) {
      case 'unknown':
        this.contacts.refused(serial, address, 'unknown', null);
        return answer(req, res, 403, 'ERROR: this terminal is not configured on the gateway');
      case 'address':
        this.contacts.refused(serial, address, 'address', r.terminal.cfg.name);
        return answer(req, res, 403, 'ERROR: this terminal may not push from this address');
      case 'reconfiguring':
        return answer(req, res, 503, 'ERROR: the gateway is being reconfigured; retry', {
          'Retry-After': String(this.settings.errorDelay),
        });
      case 'ok': {
        const admission = this.gate.admit(r.terminal, address, req.headers);
        if (admission.kind === 'retry')
          return answer(req, res, 503, 'ERROR: the gateway cannot read its records now; retry', {
            'Retry-After': String(this.settings.errorDelay),
          });
        if (admission.kind === 'stranger')
          return answer(req, res, 403, 'ERROR: this terminal pushes from another address; refused');
        return route.handler(this.ctx, {
          req,
          res,
          query,
          terminal: r.terminal,
          address,
        });
      }
    }
  }

  register(cfg: AdmsTerminalConfig): void {
    this.directory.add(cfg);
  }

  unregister(name: string): void {
    this.directory.remove(name, this.opts.clock.now());
  }

  addListened(path: string, endpoint: ListenEndpoint): void {
    this.listened.set(listenKey(path), endpoint);
  }

  removeListened(path: string, endpoint: ListenEndpoint): void {
    if (this.listened.get(listenKey(path)) === endpoint) this.listened.delete(listenKey(path));
  }

  /**
   * New settings after a reload: delays, limits of bodies and per-address connections apply at
   * once; `listen` and `maxConnections` only after a restart.
   */
  configure(next: AdmsConfig): string[] {
    // Compared with what the config said at start, not with the bound a file handle limit set.
    const started = {
      ...this.settings,
      maxConnections: this.opts.fileHandles?.configured ?? this.settings.maxConnections,
    };
    const restartOnly = (['listen', 'maxConnections', 'requestTimeoutMs'] as const).filter(
      (k) => next[k] !== started[k],
    );
    this.settings = {
      ...next,
      listen: this.settings.listen,
      maxConnections: this.settings.maxConnections,
      // One address never takes more than all: under a file handle limit that is less than configured.
      maxConnectionsPerAddress: Math.min(next.maxConnectionsPerAddress, this.settings.maxConnections),
      requestTimeoutMs: this.settings.requestTimeoutMs,
    };
    return restartOnly.map((k) => `adms.${k}`);
  }

  /** Stops listening, lets requests under way finish (briefly), writes the last contacts. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.flushTimer);
    this.keptAger.stop();
    const server = this.server;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.inflight]),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS))),
      ]);
      clearTimeout(timer);
      server.closeAllConnections();
      await closed;
    }
    this.contacts.flush();
    this.ctx.registrations.flush();
  }
}
