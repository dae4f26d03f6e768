import type { ZkTerminalConfig } from '../../config/terminals.js';
import { codeProblem, deviceIdentity, wallClockAt, wallClockDiffSeconds, type Punch } from '../../punch.js';
import { backoffDelay } from '../../util/backoff.js';
import { printable } from '../../util/terminal-text.js';
import { PunchBuffer } from '../punch-buffer.js';
import { logReceived } from '../punch-log.js';
import type { SourceDeps } from '../types.js';
import type { ZkClient } from './client/index.js';
import type { ClientFactory } from './poll.js';

/**
 * A dedicated connection subscribed to real-time attendance events. Each event is journalled
 * as it arrives, through the shared PunchBuffer: while the journal is busy the events are held
 * in memory and the link reads on. Polling stays the backstop for anything missed while this is
 * down (or refused by a full buffer). Reconnects by itself with backoff until stopped.
 */
/** Reconnect waits of the real-time link: 1 s doubling to a minute. */
const RECONNECT = { baseMs: 1000, maxMs: 60_000 };

export class RealtimeLink {
  private client: ZkClient | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
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
  ) {
    this.log = deps.logger.child({ terminal: cfg.name, link: 'realtime' });
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
      // Said at info when it starts and when it is back; a drop is said once, the retries at debug.
      log.info(
        this.failures > 0
          ? `terminal ${this.cfg.name}: real-time events flow again`
          : `terminal ${this.cfg.name}: real-time events subscribed`,
      );
      this.failures = 0;
    } catch (err) {
      client.destroy();
      this.retry(log, err);
    }
  }

  private retry(log: SourceDeps['logger'], err: unknown): void {
    if (this.stopped) return;
    this.failures++;
    const delay = backoffDelay(this.failures - 1, RECONNECT);
    const detail = { err: err instanceof Error ? err.message : String(err), retryInMs: delay };
    if (this.failures === 1)
      log.info(`terminal ${this.cfg.name}: real-time events paused (the link dropped): polls go on, nothing is missed`);
    log.debug(detail, 'real-time link down, reconnecting');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref?.();
  }
}
