import type { ZkTerminalConfig } from '../../config/terminals.js';
import { codeProblem, deviceIdentity, wallClockAt, wallClockDiffSeconds, type Punch } from '../../punch.js';
import type { BackoffBounds } from '../../util/backoff.js';
import { printable } from '../../util/terminal-text.js';
import { LinkDrops } from '../link-drops.js';
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
 * connection soon after it opens is said in the log and the status by the rule of every device
 * link (src/sources/link-drops.ts): not two log lines per drop for ever behind a "No alerts".
 */
export interface RealtimeOptions {
  reconnect?: BackoffBounds;
  healthyMs?: number;
  /** The terminal was heard: the link connected, or a punch came on it (the source's polls may be backing off). */
  onContact?: () => void;
  /** A link that was up dropped (once per run of trouble): the source polls at once (src/sources/poll-on-drop.ts). */
  onDrop?: () => void;
}

export class RealtimeLink {
  private client: ZkClient | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly health: LinkHealth;
  /** This run of trouble (since the last healthy connection): what was said of it. */
  private readonly drops: LinkDrops;
  private saidPaused = false;
  private saidBack = false;
  private subscribedOnce = false;
  /** The serial number this link's terminal answered with at connect ('' when it did not say). */
  private device = '';
  /** The terminal's clock against the box's, measured at connect (undefined when it did not say). */
  private skew: number | undefined;
  private readonly buffer: PunchBuffer<{ punch: Punch }>;
  private readonly log: SourceDeps['logger'];
  private readonly onContact: (() => void) | undefined;
  private readonly onDrop: (() => void) | undefined;
  /** A subscription is up (set when it starts, cleared at its drop). */
  private up = false;

  constructor(
    private readonly cfg: ZkTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly factory: ClientFactory,
    /** The device serial learned by polling, used when the terminal does not say at connect. */
    private readonly serial: () => string,
    opts: RealtimeOptions = {},
  ) {
    this.log = deps.logger.child({ terminal: cfg.name, link: 'realtime' });
    this.onContact = opts.onContact;
    this.onDrop = opts.onDrop;
    this.health = new LinkHealth({ ...opts, onHealthy: () => this.healthy() });
    this.drops = new LinkDrops({
      terminal: cfg.name,
      link: 'real-time connection',
      meanwhile: 'polls read every punch meanwhile',
      log: this.log,
      now: () => deps.clock.now(),
      note: (words) => writeZkNote(deps.state, cfg.name, 'realtime', words, deps.clock.now(), this.log),
    });
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
          this.onContact?.();
        },
        (err) => this.retry(log, err),
      );
      this.health.opened();
      this.up = true;
      // Said at info when it starts and when it is back after a pause; the reconnects of a link
      // that keeps dropping at debug (said in words by keepsDropping).
      if (!this.subscribedOnce) log.info(`terminal ${this.cfg.name}: real-time events subscribed`);
      else if (this.saidPaused && !this.saidBack) log.info(`terminal ${this.cfg.name}: real-time events flow again`);
      else log.debug('real-time link reconnected');
      this.subscribedOnce = true;
      if (this.saidPaused) this.saidBack = true;
      this.onContact?.();
    } catch (err) {
      client.destroy();
      this.retry(log, err);
    }
  }

  private retry(log: SourceDeps['logger'], err: unknown): void {
    if (this.stopped) return;
    const down = this.health.down();
    const detail = { err: err instanceof Error ? err.message : String(err), retryInMs: down.delay };
    const wasUp = this.up;
    this.up = false;
    if (!this.saidPaused) {
      log.info(`terminal ${this.cfg.name}: real-time events paused (the link dropped): polls go on, nothing is missed`);
      // An unplugged terminal stayed "online" in the status until its next scheduled poll (a
      // minute or more) while the log said the link dropped: a poll now tells which it is.
      if (wasUp) this.onDrop?.();
    }
    // Paused and back are said once per run of trouble; what follows, by LinkDrops.
    this.saidPaused = true;
    log.debug(detail, 'real-time link down, reconnecting');
    if (down.diedYoung) this.drops.diedYoung(down.delay);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), down.delay);
    this.timer.unref?.();
  }

  /** A connection stayed up long enough: any trouble is over. */
  private healthy(): void {
    this.drops.healthy();
    this.saidPaused = false;
    this.saidBack = false;
  }
}
