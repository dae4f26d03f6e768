import type { DahuaTerminalConfig } from '../../config/terminals.js';
import type { Logger } from '../../util/logger.js';
import type { NoteWords } from '../device-notes.js';
import { LinkDrops } from '../link-drops.js';
import { LinkHealth } from '../link-health.js';
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
 * by the rule of every device link (src/sources/link-health.ts, link-drops.ts): after a wait
 * doubling from 1 s to a minute, from 1 s again once it stayed up a minute; a stream that keeps
 * dropping soon after it opens is said once in the log and in the status, not at every drop.
 */
export interface EventLinkHooks {
  client: () => DahuaClient;
  /** Reads the records now (after the running poll, if one runs). */
  backfill: () => void;
  /**
   * A stream that had opened dropped (the first drop of a run of trouble): the source polls at
   * once (src/sources/poll-on-drop.ts), for the records whose events the stream missed.
   */
  onDrop?: () => void;
  /** When the stream may (re)connect: after a poll proved the password, outside a refusal's wait. */
  authWaitUntil: () => number | undefined;
  onAuthRefused: (e: DahuaAuthError) => void;
  /** Writes the stream's status note (a bound broken, a stream that keeps dropping); null clears it. */
  note: (words: NoteWords | null) => void;
  /** The box's clock (when things are said). */
  now: () => number;
}

export interface EventLinkOptions {
  idleMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** How long a stream must stay open before its backoff starts again and its trouble is over. */
  healthyMs?: number;
}

export class EventLink {
  private stopped = false;
  private abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly health: LinkHealth;
  private readonly drops: LinkDrops;
  /** Said once per run of trouble: "paused" (the first drop), then LinkDrops. */
  private saidPaused = false;
  private running: Promise<void> | undefined;
  /** Waiting for a poll to prove the password (or for a refusal's wait): a nudge connects at once. */
  private waitingForPassword = false;
  /** Events seen on the stream (tests). */
  events = 0;

  constructor(
    private readonly cfg: DahuaTerminalConfig,
    private readonly log: Logger,
    private readonly hooks: EventLinkHooks,
    private readonly opts: EventLinkOptions = {},
  ) {
    this.health = new LinkHealth({
      reconnect: { baseMs: opts.retryBaseMs ?? 1000, maxMs: opts.retryMaxMs ?? 60_000 },
      healthyMs: opts.healthyMs,
      onHealthy: () => {
        this.saidPaused = false;
        // Any trouble is over: a bound's note, a link that kept dropping, a previous run's note.
        if (this.drops.count > 0) this.drops.healthy();
        else this.hooks.note(null);
      },
    });
    this.drops = new LinkDrops({
      terminal: cfg.name,
      link: 'event stream',
      meanwhile: 'polls read every record meanwhile',
      log,
      now: () => hooks.now(),
      note: (words) => hooks.note(words),
    });
  }

  start(): void {
    this.schedule(0);
  }

  /**
   * A poll proved the password: connect now if the link is waiting for that, and only then. A
   * link waiting out its reconnect backoff keeps waiting: every poll that reached the terminal
   * reconnected it, so a stream that keeps dropping was opened again at every poll (every second
   * on a one-second schedule), whatever its backoff said.
   */
  nudge(): void {
    if (this.stopped || this.running || !this.waitingForPassword) return;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const wait = this.hooks.authWaitUntil();
      this.waitingForPassword = wait !== undefined;
      if (wait !== undefined) {
        this.schedule(Math.max(1000, wait - Date.now()));
        return;
      }
      this.running = this.runOnce().finally(() => (this.running = undefined));
    }, ms);
    this.timer.unref?.();
  }

  private async runOnce(): Promise<void> {
    let broke: string | undefined;
    let boundBroken = false;
    let opened = false;
    try {
      const client = this.hooks.client();
      const { contentType, body } = await client.http.stream(
        DahuaClient.attachPath(HEARTBEAT_SECONDS),
        this.abort.signal,
      );
      this.health.opened();
      opened = true;
      if (this.saidPaused) this.log.info(`terminal ${this.cfg.name}: event stream open again`);
      else this.log.info(`terminal ${this.cfg.name}: event stream open`);
      // Whatever happened while it was closed is read now.
      this.hooks.backfill();
      const boundary = /boundary="?([^";\s]+)"?/i.exec(contentType)?.[1] ?? 'myboundary';
      const end = await this.read(body, boundary.replace(/^--/, ''));
      broke = end.why;
      boundBroken = end.boundBroken;
    } catch (e) {
      if (this.stopped) return;
      if (e instanceof DahuaAuthError) {
        this.hooks.onAuthRefused(e);
        broke = e.message;
      } else broke = e instanceof Error ? e.message : String(e);
    }
    if (this.stopped) return;
    const down = this.health.down();
    // The first drop of a run of trouble is said; the reconnects after it at debug, and a stream
    // that keeps dropping young in words (LinkDrops) and the status, not a warning a minute.
    if (!this.saidPaused) {
      this.log.warn(
        { err: broke, retryInMs: down.delay },
        `terminal ${this.cfg.name}: event stream closed (${broke}): polls go on, nothing is missed`,
      );
      // The records whose events the stream missed before it dropped (a connection gone silent
      // first) are read now, not after the reconnect's wait (or never, while it cannot open again).
      if (opened) this.hooks.onDrop?.();
    } else this.log.debug({ err: broke, retryInMs: down.delay }, 'event stream down, reconnecting');
    this.saidPaused = true;
    // A bound broken has its own note (onFault's words); a try that failed is the poll's to say.
    if (down.diedYoung && !boundBroken) this.drops.diedYoung(down.delay);
    this.abort = new AbortController();
    this.schedule(down.delay);
  }

  /** Reads the stream until it ends or breaks a bound; returns why it stopped. */
  private read(
    body: NodeJS.ReadableStream & { destroy(): void },
    boundary: string,
  ): Promise<{ why: string; boundBroken: boolean }> {
    const idleMs = this.opts.idleMs ?? STREAM_IDLE_MS;
    const marker = `--${boundary}`;
    return new Promise((resolve) => {
      const scanner = new EventStreamScanner(marker, () => {
        this.events++;
        this.hooks.backfill();
      });
      let done = false;
      let idle: NodeJS.Timeout | undefined;
      const finish = (why: string, boundBroken = false) => {
        if (done) return;
        done = true;
        clearTimeout(idle);
        body.destroy();
        resolve({ why, boundBroken });
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
          this.hooks.note(words);
          finish('a part beyond the bound', true);
        }
      });
      body.on('end', () => finish('the device ended the stream'));
      body.on('error', (e: Error) => finish(e.message));
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.health.stop();
    this.abort.abort();
    await this.running;
  }
}
