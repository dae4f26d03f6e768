import type { DahuaTerminalConfig } from '../../config/terminals.js';
import { backoffDelay } from '../../util/backoff.js';
import type { Logger } from '../../util/logger.js';
import { STREAM_HEALTHY_MS } from '../link-health.js';
import { DahuaClient } from './client.js';
import { DahuaAuthError } from './errors.js';
import { EventStreamScanner } from './event-scanner.js';
import { HEARTBEAT_SECONDS, MAX_PART_BYTES, STREAM_IDLE_MS } from './limits.js';

/**
 * The device's event stream (`eventManager.cgi?action=attach&codes=[AccessControl]`): a multipart
 * answer that never ends, one part per event (`Code=AccessControl;action=Pulse;index=0;data={...}`)
 * and a `Heartbeat` part every few seconds. Sources: Dahua's HTTP API ("Subscribe to events");
 * the parsers of home-assistant Dahua integrations and of other open clients, which show events
 * as one line or with the JSON over several lines, with or without Content-Length.
 *
 * An access event here is not journalled from the stream: it wakes a read of the records at once
 * (by RecNo, from the cursor). The stream's data carries the time in another encoding than the
 * record and not always the RecNo; reading the record itself gives the same punch as the poll,
 * so real time and poll can never make two punches of one, and a stream that drops an event
 * loses nothing (the poll reads it).
 *
 * Bounds: a silence longer than STREAM_IDLE_MS (several heartbeats) is a dead link; a part of
 * more than MAX_PART_BYTES is no device's event. Either closes the stream, which is opened again
 * after a wait doubling from 1 s to a minute (from 1 s again once it stayed up a minute).
 */
export interface EventLinkHooks {
  client: () => DahuaClient;
  /** Reads the records now (after the running poll, if one runs). */
  backfill: () => void;
  /** When the stream may (re)connect: after a poll proved the password, outside a refusal's wait. */
  authWaitUntil: () => number | undefined;
  onAuthRefused: (e: DahuaAuthError) => void;
  /** A bound broken, in words (for the status). */
  onFault: (words: { cause: string; fix: string }) => void;
}

export interface EventLinkOptions {
  idleMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
}

export class EventLink {
  private stopped = false;
  private abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private running: Promise<void> | undefined;
  /** Events seen on the stream (tests). */
  events = 0;

  constructor(
    private readonly cfg: DahuaTerminalConfig,
    private readonly log: Logger,
    private readonly hooks: EventLinkHooks,
    private readonly opts: EventLinkOptions = {},
  ) {}

  start(): void {
    this.schedule(0);
  }

  /** A poll proved the password: connect now if waiting for it. */
  nudge(): void {
    if (this.stopped || this.running) return;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const wait = this.hooks.authWaitUntil();
      if (wait !== undefined) {
        this.schedule(Math.max(1000, wait - Date.now()));
        return;
      }
      this.running = this.runOnce().finally(() => (this.running = undefined));
    }, ms);
    this.timer.unref?.();
  }

  private async runOnce(): Promise<void> {
    const openedAt = performance.now();
    let broke: string | undefined;
    try {
      const client = this.hooks.client();
      const { contentType, body } = await client.http.stream(
        DahuaClient.attachPath(HEARTBEAT_SECONDS),
        this.abort.signal,
      );
      this.log.info(`terminal ${this.cfg.name}: event stream open`);
      // Whatever happened while it was closed is read now.
      this.hooks.backfill();
      const boundary = /boundary="?([^";\s]+)"?/i.exec(contentType)?.[1] ?? 'myboundary';
      broke = await this.read(body, boundary.replace(/^--/, ''));
    } catch (e) {
      if (this.stopped) return;
      if (e instanceof DahuaAuthError) {
        this.hooks.onAuthRefused(e);
        broke = e.message;
      } else broke = e instanceof Error ? e.message : String(e);
    }
    if (this.stopped) return;
    if (performance.now() - openedAt >= STREAM_HEALTHY_MS) this.failures = 0;
    const wait = backoffDelay(this.failures++, {
      baseMs: this.opts.retryBaseMs ?? 1000,
      maxMs: this.opts.retryMaxMs ?? 60_000,
    });
    this.log.warn({ err: broke, retryInMs: wait }, `terminal ${this.cfg.name}: event stream closed`);
    this.abort = new AbortController();
    this.schedule(wait);
  }

  /** Reads the stream until it ends or breaks a bound; returns why it stopped. */
  private read(body: NodeJS.ReadableStream & { destroy(): void }, boundary: string): Promise<string> {
    const idleMs = this.opts.idleMs ?? STREAM_IDLE_MS;
    const marker = `--${boundary}`;
    return new Promise((resolve) => {
      const scanner = new EventStreamScanner(marker, () => {
        this.events++;
        this.hooks.backfill();
      });
      let done = false;
      let idle: NodeJS.Timeout | undefined;
      const finish = (why: string) => {
        if (done) return;
        done = true;
        clearTimeout(idle);
        body.destroy();
        resolve(why);
      };
      const armIdle = () => {
        clearTimeout(idle);
        idle = setTimeout(() => finish(`no heartbeat for ${Math.round(idleMs / 1000)} s`), idleMs);
        idle.unref?.();
      };
      armIdle();
      this.abort.signal.addEventListener('abort', () => finish('stopped'), { once: true });
      body.on('data', (chunk: Buffer) => {
        armIdle();
        // Only the words that matter are looked for: a part boundary and an access event.
        const partBytes = scanner.push(chunk);
        if (partBytes > MAX_PART_BYTES) {
          const words = {
            cause: `its event stream sent a part of more than ${Math.round(MAX_PART_BYTES / 1024)} kB (no event is that large): the stream was closed and is opened again; the records are read by the poll meanwhile`,
            fix: 'restart the terminal, and update its firmware if it goes on',
          };
          this.hooks.onFault(words);
          finish('a part beyond the bound');
        }
      });
      body.on('end', () => finish('the device ended the stream'));
      body.on('error', (e: Error) => finish(e.message));
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.running;
  }
}
