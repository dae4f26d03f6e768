import type { ZkTerminalConfig } from '../../config/terminals.js';
import { codeProblem } from '../../punch.js';
import { backoffDelay } from '../../util/backoff.js';
import { printable } from '../../util/terminal-text.js';
import type { SourceDeps } from '../types.js';
import type { ZkClient } from './client/index.js';
import type { ClientFactory } from './poll.js';

/**
 * A dedicated connection subscribed to real-time attendance events. Each event is journalled
 * as it arrives; polling stays the backstop for anything missed while this is down.
 * Reconnects by itself with backoff until stopped.
 */
/** Reconnect waits of the real-time link: 1 s doubling to a minute. */
const RECONNECT = { baseMs: 1000, maxMs: 60_000 };

export class RealtimeLink {
  private client: ZkClient | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;

  constructor(
    private readonly cfg: ZkTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly factory: ClientFactory,
    /** The device serial to file events under (learned by polling). */
    private readonly serial: () => string,
  ) {}

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
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const log = this.deps.logger.child({ terminal: this.cfg.name, link: 'realtime' });
    const client = this.factory(this.cfg);
    this.client = client;
    try {
      await client.connect();
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
          try {
            const r = this.deps.sink.ingest(
              [
                {
                  terminal: this.cfg.name,
                  device: this.serial(),
                  biometricCode: e.userId,
                  logTime: e.logTime,
                  verifyType: e.verifyType,
                  punchState: e.state,
                },
              ],
              { timezone: this.cfg.timezone },
            );
            if (r.added > 0) this.deps.onPunches?.(r.added);
            log.debug({ code: e.userId, logTime: e.logTime, added: r.added }, 'real-time punch');
          } catch (err) {
            // The journal failing is fatal for the process; the daemon sees it on its own writes too.
            log.error({ err: String(err) }, 'could not journal a real-time punch; polling will read it again');
          }
        },
        (err) => this.retry(log, err),
      );
      this.failures = 0;
      log.info('subscribed to real-time events');
    } catch (err) {
      client.destroy();
      this.retry(log, err);
    }
  }

  private retry(log: SourceDeps['logger'], err: unknown): void {
    if (this.stopped) return;
    this.failures++;
    const delay = backoffDelay(this.failures - 1, RECONNECT);
    log.info({ err: err instanceof Error ? err.message : String(err), retryInMs: delay }, 'real-time link down');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref?.();
  }
}
