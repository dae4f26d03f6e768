import type { ZkTerminalConfig } from '../../config/terminals.js';
import { codeProblem, deviceIdentity, wallClockAt, wallClockDiffSeconds, type Punch } from '../../punch.js';
import type { BackoffBounds } from '../../util/backoff.js';
import { printable } from '../../util/terminal-text.js';
import { LinkHealth } from '../link-health.js';
import { PunchBuffer } from '../punch-buffer.js';
import { logReceived } from '../punch-log.js';
import type { SourceDeps } from '../types.js';
import type { ZkClient } from './client/index.js';
import { writeZkNote } from './notes.js';
import type { ClientFactory } from './poll.js';

/**
 * A dedicated connection subscribed to real-time attendance events. Each event is journalled
 * as it arrives, through the shared PunchBuffer: while the journal is busy the events are held
 * in memory and the link reads on. Polling stays the backstop for anything missed while this is
 * down (or refused by a full buffer). Reconnects by itself until stopped, by the rule of every
 * device link (src/sources/link-health.ts): the waits grow while connections die young and start
 * again only once one stayed up a minute. A terminal (or a proxy before it) that cuts every
 * connection soon after it opens is said once in the log, then at most every SAY_AGAIN_MS, and
 * in the status: not two log lines per drop for ever behind a "No alerts".
 */
export interface RealtimeOptions {
  reconnect?: BackoffBounds;
  healthyMs?: number;
}

/** Connections dying young in a row before the link is said to keep dropping (one may be a blip). */
const KEEPS_DROPPING_AFTER = 3;
/** A link that keeps dropping is said again (log and status note) at most this often. */
const SAY_AGAIN_MS = 10 * 60_000;

export class RealtimeLink {
  private client: ZkClient | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly health: LinkHealth;
  /** This run of trouble (since the last healthy connection): what was said of it. */
  private youngDrops = 0;
  private saidPaused = false;
  private saidBack = false;
  private saidDroppingAt: number | undefined;
  private subscribedOnce = false;
  /** The serial number this link's terminal answered with at connect ('' when it did not say). */
  private device = '';
  /** The terminal's clock against the box's, measured at connect (undefined when it did not say). */
  private skew: number | undefined;
  private readonly buffer: PunchBuffer<{ punch: Punch }>;
  private readonly log: SourceDeps['logger'];

  constructor(
    private readonly cfg: ZkTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly factory: ClientFactory,
    /** The device serial learned by polling, used when the terminal does not say at connect. */
    private readonly serial: () => string,
    opts: RealtimeOptions = {},
  ) {
    this.log = deps.logger.child({ terminal: cfg.name, link: 'realtime' });
    this.health = new LinkHealth({ ...opts, onHealthy: (n) => this.healthy(n) });
    this.buffer = new PunchBuffer({
      sink: deps.sink,
      // The terminal's clock as last measured (by a poll, else at this link's connect).
      ingestOptions: () => {
        const skew = deps.ledger.get(cfg.name)?.skewSeconds ?? this.skew;
        return { timezone: cfg.timezone, live: true, clockSkewSeconds: skew, currentSkewSeconds: skew };
      },
      log: this.log,
      // The terminal keeps each punch in its log; the poll reads it again (and clears only after its own sync).
      readAgainByPoll: true,
      onWritten: (items, r) => {
        if (r.added > 0) this.deps.onPunches?.(r.added);
        logReceived(this.log, cfg.name, items.length, r);
        for (const { punch } of items)
          this.log.debug({ code: punch.biometricCode, logTime: punch.logTime }, 'real-time punch journalled');
      },
    });
  }

  /** Events received but not yet in the journal (it is busy). */
  get held(): number {
    return this.buffer.size;
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.health.stop();
    const c = this.client;
    this.client = undefined;
    if (c) await c.disconnect().catch(() => c.destroy());
    await this.buffer.stop();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const log = this.log;
    const client = this.factory(this.cfg);
    this.client = client;
    try {
      await client.connect();
      // Events are filed under the device that sends them: the same identity a poll gives them,
      // so a punch seen live and again in the log is stored once.
      this.device = deviceIdentity((await client.getSerialNumber().catch(() => '')).trim()) || this.serial();
      const terminalTime = await client.getTime().catch(() => undefined);
      if (terminalTime)
        this.skew = wallClockDiffSeconds(terminalTime, wallClockAt(this.deps.clock.now(), this.cfg.timezone));
      await client.subscribeRealtime(
        (e) => {
          const bad = codeProblem(e.userId);
          if (bad) {
            // The same record comes again with the next poll's download, which reports it too.
            log.warn(
              { code: printable(e.userId), logTime: e.logTime, reason: bad },
              'real-time punch with an unusable user id not journalled',
            );
            return;
          }
          const refused = this.buffer.add([
            {
              punch: {
                terminal: this.cfg.name,
                device: this.device || this.serial(),
                biometricCode: e.userId,
                logTime: e.logTime,
                verifyType: e.verifyType,
                punchState: e.state,
              },
            },
          ]);
          if (refused > 0)
            log.warn({ code: e.userId, logTime: e.logTime }, 'real-time punch not held; the next poll reads it');
        },
        (err) => this.retry(log, err),
      );
      this.health.opened();
      // Said at info when it starts and when it is back after a pause; the reconnects of a link
      // that keeps dropping at debug (said in words by keepsDropping).
      if (!this.subscribedOnce) log.info(`terminal ${this.cfg.name}: real-time events subscribed`);
      else if (this.saidPaused && !this.saidBack) log.info(`terminal ${this.cfg.name}: real-time events flow again`);
      else log.debug('real-time link reconnected');
      this.subscribedOnce = true;
      if (this.saidPaused) this.saidBack = true;
    } catch (err) {
      client.destroy();
      this.retry(log, err);
    }
  }

  private retry(log: SourceDeps['logger'], err: unknown): void {
    if (this.stopped) return;
    const down = this.health.down();
    if (down.diedYoung) this.youngDrops++;
    const detail = { err: err instanceof Error ? err.message : String(err), retryInMs: down.delay };
    if (!this.saidPaused)
      log.info(`terminal ${this.cfg.name}: real-time events paused (the link dropped): polls go on, nothing is missed`);
    // Paused and back are said once per run of trouble; what follows, by keepsDropping.
    this.saidPaused = true;
    log.debug(detail, 'real-time link down, reconnecting');
    if (down.diedYoung && this.youngDrops >= KEEPS_DROPPING_AFTER) this.keepsDropping(log, down.delay);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), down.delay);
    this.timer.unref?.();
  }

  /** Connections die young again and again: said in the log and the status, at a bounded rate. */
  private keepsDropping(log: SourceDeps['logger'], delay: number): void {
    const now = this.deps.clock.now();
    const at = this.saidDroppingAt;
    // A box clock set back is no reason to stay silent for the hours it went back.
    if (at !== undefined && now >= at && now - at < SAY_AGAIN_MS) return;
    this.saidDroppingAt = now;
    const words = {
      cause: `its real-time connection keeps dropping soon after it opens (${this.youngDrops} times in a row): punchgate reconnects less and less often (next in ${Math.round(delay / 1000)} s, at most a minute apart), and polls read every punch meanwhile`,
      fix: "check what sits between this box and the terminal (a proxy, a firewall or NAT that cuts TCP connections) and the terminal's network settings; set realtime: false for it if this goes on",
    };
    log.warn({ drops: this.youngDrops, retryInMs: delay }, `terminal ${this.cfg.name}: ${words.cause}`);
    writeZkNote(this.deps.state, this.cfg.name, 'realtime', words, now, log);
  }

  /** A connection stayed up long enough: any trouble is over. */
  private healthy(failures: number): void {
    if (this.saidDroppingAt !== undefined)
      this.log.info(
        { failures },
        `terminal ${this.cfg.name}: the real-time connection stays up again (it dropped ${this.youngDrops} times soon after opening)`,
      );
    // Also a note a previous run of the daemon left (writing null where there is none writes nothing).
    writeZkNote(this.deps.state, this.cfg.name, 'realtime', null, this.deps.clock.now(), this.log);
    this.youngDrops = 0;
    this.saidPaused = false;
    this.saidBack = false;
    this.saidDroppingAt = undefined;
  }
}
