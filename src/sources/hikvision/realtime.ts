import type { HikvisionTerminalConfig } from '../../config/terminals.js';
import type { Punch } from '../../punch.js';
import { backoffDelay, type BackoffBounds } from '../../util/backoff.js';
import { LogBudget } from '../../util/log-budget.js';
import { journalReadAgain } from '../journal-synced-apart.js';
import { LinkDrops } from '../link-drops.js';
import { logReceived } from '../punch-log.js';
import type { SourceDeps } from '../types.js';
import { splitIsoTime, type HikvisionClient } from './client.js';
import { HikAuthError } from './errors.js';
import { cursorKey, parseCursor, type EventCursor } from './event-reader.js';
import { classify, fromAlert, type AccessEvent } from './events.js';
import type { UnknownMinorLog } from './unknown-minors.js';
import { UnlistedPassLog } from './unlisted-log.js';
import { eventJsonOf, isObject, xmlField, type Json } from './isapi.js';
import { monotonicNow, STREAM_HEALTHY_MS } from './limits.js';
import { boundaryOf, MultipartStreamParser, StreamBoundError, type StreamPart } from './multipart.js';
import { writeNote, type NoteWords } from './notes.js';

export const ALERT_STREAM_PATH = '/ISAPI/Event/notification/alertStream';
/** Reconnect waits of the alert stream: 1 s doubling to a minute. */
const RECONNECT: BackoffBounds = { baseMs: 1000, maxMs: 60_000 };
/**
 * Events happening now are journalled in small groups: at most this many, at most this long
 * after the first. One transaction (one disk sync) per group, not per event, whatever arrives.
 */
const GROUP_MAX = 500;
const GROUP_MS = 50;
/** The journalled cursor is read again at most this often while events stream in. */
const CURSOR_FRESH_MS = 500;
/** What the stream tells asks for a backfill poll at most this often (reconnects always do). */
const BACKFILL_EVERY_MS = 5000;

/** The access event in one alert-stream part (JSON or XML), or undefined for anything else (heartbeats, pictures). */
export function accessEventOf(part: StreamPart): AccessEvent | undefined {
  const text = part.body.toString('utf8').trim();
  if (text.startsWith('{')) {
    const o = eventJsonOf(text);
    if (!o || o.eventType !== 'AccessControllerEvent' || !isObject(o.AccessControllerEvent)) return undefined;
    return fromAlert(o, o.AccessControllerEvent);
  }
  if (text.startsWith('<') && xmlField(text, 'eventType') === 'AccessControllerEvent') {
    const inner: Json = {};
    // Numbers as text, as XML has them: events.ts reads them (and refuses what is not a number).
    for (const f of [
      'majorEventType',
      'subEventType',
      'serialNo',
      'employeeNoString',
      'employeeNo',
      'cardNo',
      'attendanceStatus',
      'currentEvent',
    ]) {
      const v = xmlField(text, f);
      if (v !== undefined) inner[f] = v;
    }
    return fromAlert({ dateTime: xmlField(text, 'dateTime') }, inner);
  }
  return undefined;
}

export interface AlertStreamHooks {
  /** The client to open the stream with (shared with the poller: same Digest state). */
  client: () => Promise<HikvisionClient>;
  /** The device serial to file punches under (learned by polling). */
  serial: () => string;
  /** undefined: the password may be tried; else when it may be tried again (a refusal's wait). */
  authWaitUntil: () => number | undefined;
  /** The stream's password was refused: record it like the poller does. */
  onAuthRefused: (e: HikAuthError) => void;
  /**
   * Read by serial number what the stream does not bring: after every (re)connect (what arrived
   * while it was down), and when it tells of events the journal does not have yet.
   */
  backfill: () => void;
  /**
   * A stream that had opened dropped (the first drop of a run of trouble): the source polls at
   * once (src/sources/poll-on-drop.ts), for what the stream missed before it dropped.
   */
  onDrop?: () => void;
  /** Minors of a newer firmware, said once per code for the terminal (the poller's: unknown-minors.ts). */
  unknownMinors?: UnknownMinorLog;
}

export interface AlertStreamOptions {
  reconnect?: BackoffBounds;
  /** How long the stream must stay open, within its bounds, before its backoff starts again. */
  healthyMs?: number;
  /** The monotonic clock (tests pass their own). */
  monotonic?: () => number;
}

/**
 * The device's alert stream, kept open: each authentication pass is journalled as it arrives.
 * After every (re)connect the poller backfills by serial number, and polling stays the backstop.
 *
 * What the stream may not do: a part beyond the bounds (multipart.ts) drops the stream, is said
 * in the status, and the reconnect waits grow (1 s doubling to a minute) until a stream has
 * stayed open and within its bounds for a minute: opening is not enough. The replay of the whole
 * stored log some firmware sends on every reconnect (`currentEvent: false`) is left to the
 * backfill poll, which reads it by serial number in large transactions: the stream writes only
 * what happens now, in groups, and skips what the journalled cursor shows as read already.
 */
export class AlertStreamLink {
  private stopped = false;
  /** Connecting or connected: a nudge does nothing then. */
  private active = false;
  /** Waiting for a poll to prove the password (or for a refusal's wait): a nudge connects at once. */
  private waitingForPassword = false;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private abort: AbortController | undefined;
  private closeStream: (() => void) | undefined;
  private readonly minors: ReadonlySet<number>;
  /** Events the stream brought that cannot be read (a code that is not a number): a few log lines per 10 minutes. */
  private readonly unreadableLog = new LogBudget(5, 10 * 60_000);
  /** Passes `minors` leaves out: said, a line per 10 minutes at most. */
  private readonly unlistedLog: UnlistedPassLog;
  private readonly reconnect: BackoffBounds;
  private readonly healthyMs: number;
  private readonly mono: () => number;
  /** When the current stream opened (monotonic), and whether a note about it is in the status. */
  private openedAt: number | undefined;
  private noted = false;
  /** Streams that dropped soon after opening, said by the rule of every device link. */
  private readonly drops: LinkDrops;
  /** The current stream was judged healthy (it stayed open healthyMs within its bounds). */
  private judgedHealthy = false;
  /** Events happening now, waiting for their group's transaction. */
  private group: AccessEvent[] = [];
  private groupTimer: NodeJS.Timeout | undefined;
  private cursor: { value: EventCursor; readAt: number; serial: string } | undefined;
  /** Stored events the device replayed on this connection (left to the backfill poll). */
  private replayed = 0;
  private backfillAskedAt: number | undefined;

  constructor(
    private readonly cfg: HikvisionTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly hooks: AlertStreamHooks,
    opts: AlertStreamOptions = {},
  ) {
    this.minors = new Set(cfg.minors);
    this.unlistedLog = new UnlistedPassLog(this.minors, `terminal ${cfg.name}, alert stream`);
    this.reconnect = opts.reconnect ?? RECONNECT;
    this.healthyMs = opts.healthyMs ?? STREAM_HEALTHY_MS;
    this.mono = opts.monotonic ?? monotonicNow;
    this.drops = new LinkDrops({
      terminal: cfg.name,
      link: 'alert stream',
      meanwhile: 'polls read every event meanwhile',
      log: this.log(),
      now: () => deps.clock.now(),
      note: (words) => this.note(words, true),
    });
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  /**
   * A poll just proved the password: connect now if the link is waiting for that, and only then
   * (a link waiting out its reconnect backoff keeps waiting: polls every second must not turn a
   * misbehaving stream into a reconnect every second).
   */
  nudge(): void {
    if (this.stopped || this.active || !this.waitingForPassword) return;
    clearTimeout(this.timer);
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort?.abort();
    this.closeStream?.();
    this.flushGroup();
  }

  /** Consecutive reconnects without a healthy stream in between. */
  get failureCount(): number {
    return this.failures;
  }

  private log() {
    return this.deps.logger.child({ terminal: this.cfg.name, link: 'alertStream' });
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const wait = this.hooks.authWaitUntil();
    this.waitingForPassword = wait !== undefined;
    if (wait !== undefined) {
      // No poll has proven the password yet, or a refusal's wait: the poller's rule applies here
      // too (devices lock the account); a successful poll nudges the link.
      this.schedule(Math.max(1000, wait - this.deps.clock.now()));
      return;
    }
    const log = this.log();
    this.abort = new AbortController();
    this.active = true;
    let broke: StreamBoundError | undefined;
    try {
      const client = await this.hooks.client();
      const s = await client.http.stream(ALERT_STREAM_PATH, this.abort.signal);
      this.closeStream = s.close;
      const boundary = boundaryOf(s.contentType) ?? 'boundary';
      log.info(
        this.failures > 0
          ? `terminal ${this.cfg.name}: real-time events flow again (alert stream open)`
          : `terminal ${this.cfg.name}: real-time events subscribed (alert stream open)`,
      );
      this.openedAt = this.mono();
      this.judgedHealthy = false;
      this.replayed = 0;
      this.backfill(true);
      const parser = new MultipartStreamParser(boundary, (part) => this.onPart(part));
      try {
        for await (const chunk of s.body) parser.push(chunk as Buffer);
      } catch (e) {
        if (e instanceof StreamBoundError) broke = e;
        throw e;
      }
      s.close();
      this.ended(new Error('the device ended the alert stream'), broke);
    } catch (e) {
      this.closeStream?.();
      if (e instanceof HikAuthError) this.hooks.onAuthRefused(e);
      this.ended(e, broke);
    }
  }

  /** The stream is down: judge it (healthy or not), say a broken bound, and wait to reconnect. */
  private ended(err: unknown, broke: StreamBoundError | undefined): void {
    this.active = false;
    this.flushGroup();
    if (this.replayed > 0) {
      this.log().info({ replayed: this.replayed }, 'the alert stream replayed stored events: the poll reads them');
    }
    const opened = this.openedAt !== undefined;
    const healthy = opened && !broke && this.mono() - this.openedAt! >= this.healthyMs;
    this.openedAt = undefined;
    if (healthy) {
      this.failures = 0;
      this.wasHealthy();
    }
    if (this.stopped) return;
    this.failures++;
    const delay = backoffDelay(this.failures - 1, this.reconnect);
    // What the stream missed before it dropped (a connection gone silent first) is read now, not
    // after the reconnect's wait (or never, while it cannot open again): once per run of trouble.
    if (opened && this.failures === 1) this.hooks.onDrop?.();
    if (broke) {
      this.log().warn({ err: broke.message, retryInMs: delay }, 'alert stream dropped: the device broke a bound');
      this.note({
        cause: `its alert stream sent ${broke.message}: punchgate dropped the stream and reconnects less and less often (next in ${Math.round(delay / 1000)} s), while polls still read every event`,
        fix: 'restart the terminal, or set realtime: false for it if this goes on',
      });
    } else {
      if (this.failures === 1)
        this.log().info(
          `terminal ${this.cfg.name}: real-time events paused (the alert stream dropped): polls go on, nothing is missed`,
        );
      this.log().debug(
        { err: err instanceof Error ? err.message : String(err), retryInMs: delay },
        'alert stream down, reconnecting',
      );
      // Opened, then dropped before it was healthy (a try that failed is the poll's to say).
      if (opened && !healthy) this.drops.diedYoung(delay);
    }
    this.schedule(delay);
  }

  /**
   * Writes the stream's status note. A clearing is skipped when this run wrote none, unless
   * `always` (once a stream turns healthy: a note a previous run of the daemon left goes too).
   */
  private note(words: NoteWords | null, always = false): void {
    if (words === null && !this.noted && !always) return;
    this.noted = words !== null;
    writeNote(this.deps.state, this.cfg.name, 'stream', words, this.deps.clock.now(), this.log());
  }

  /** The current stream stayed open within its bounds healthyMs: any trouble is over (once a stream). */
  private wasHealthy(): void {
    if (this.judgedHealthy) return;
    this.judgedHealthy = true;
    if (this.drops.count > 0) this.drops.healthy();
    else this.note(null, true);
  }

  private onPart(part: StreamPart): void {
    // A stream that stays within its bounds for a while is healthy again: the status says no more.
    if (!this.judgedHealthy && this.openedAt !== undefined && this.mono() - this.openedAt >= this.healthyMs)
      this.wasHealthy();
    const e = accessEventOf(part);
    if (!e) return;
    if (e.currentEvent === false) {
      // Replayed from the device's stored log: the backfill poll reads it, in large transactions.
      this.replayed++;
      if (e.serialNo !== undefined && e.serialNo > (this.readCursor().serialNo ?? 0)) this.backfill();
      return;
    }
    this.group.push(e);
    if (this.group.length >= GROUP_MAX) this.flushGroup();
    else this.groupTimer ??= setTimeout(() => this.flushGroup(), GROUP_MS);
  }

  /** Asks for a backfill poll: at once after a (re)connect, else at most every BACKFILL_EVERY_MS. */
  private backfill(now = false): void {
    const t = this.mono();
    if (!now && this.backfillAskedAt !== undefined && t - this.backfillAskedAt < BACKFILL_EVERY_MS) return;
    this.backfillAskedAt = t;
    this.hooks.backfill();
  }

  /** The journalled cursor of this device (and its serial), read again at most every CURSOR_FRESH_MS. */
  private readCursor(): EventCursor {
    const now = this.mono();
    if (this.cursor && now - this.cursor.readAt < CURSOR_FRESH_MS) return this.cursor.value;
    const serial = this.hooks.serial();
    let value: EventCursor = {};
    try {
      value = parseCursor(this.deps.state.get(this.cfg.name, cursorKey(serial)));
    } catch {
      /* a journal that cannot be read now: nothing is skipped */
    }
    this.cursor = { value, readAt: now, serial };
    return value;
  }

  /**
   * Journals the events of the group in one transaction, leaving out what a poll read already
   * (at or below the journalled cursor). An event numbered at or below the cursor but newer than
   * it means the cursor no longer matches the device (its numbering restarted): it is journalled,
   * and a poll asked for, which notices and sets the cursor back.
   */
  private flushGroup(): void {
    clearTimeout(this.groupTimer);
    this.groupTimer = undefined;
    const events = this.group;
    if (events.length === 0) return;
    this.group = [];
    this.cursor = undefined;
    const cursor = this.readCursor();
    const device = this.cursor!.serial;
    if (device === '') {
      // No poll has recorded the device's serial number yet: punches filed without it would not
      // be known as the same punches when the poll reads them. The poll reads them, now.
      this.backfill(true);
      return;
    }
    const punches: Punch[] = [];
    let behind = false;
    for (const e of events) {
      const c = classify(e, this.cfg.name, device, this.minors);
      if (c.kind === 'malformed') this.unreadable(c.reason, e.serialNo);
      const numbered = e.serialNo !== undefined && cursor.serialNo !== undefined && e.serialNo <= cursor.serialNo;
      if (numbered && cursor.time !== undefined) {
        const wall = splitIsoTime(e.time)?.wallClock;
        if (wall === undefined || wall <= cursor.time) continue; // read already (and said, by the poll)
      }
      if (c.kind !== 'punch') {
        this.unlistedLog.note(e, this.mono(), this.log());
        if (c.kind === 'other') this.hooks.unknownMinors?.note(e, this.log());
        continue;
      }
      if (numbered) behind = true;
      punches.push(c.punch);
    }
    if (behind) this.backfill();
    if (punches.length === 0) return;
    const log = this.log();
    try {
      // Judged against the terminal's clock as its last poll read it.
      const skew = this.deps.ledger.get(this.cfg.name)?.skewSeconds ?? undefined;
      // The device keeps them in its log, read again by the poll: the disk sync is made beside the event loop.
      const r = journalReadAgain(this.deps.sink, punches, { timezone: this.cfg.timezone, currentSkewSeconds: skew });
      if (r.added > 0) this.deps.onPunches?.(r.added);
      logReceived(log, this.cfg.name, punches.length, r);
      log.debug({ punches: punches.length, added: r.added }, 'real-time punches');
    } catch (err) {
      // The device keeps them: the next poll reads them by serial number.
      log.warn(
        { err: err instanceof Error ? err.message : String(err), punches: punches.length },
        'real-time punches not journalled now: the next poll reads them from the terminal',
      );
      this.backfill();
    }
  }

  /** An event of the stream skipped: said (the poll reads the device's log, and skips it alike, saying so). */
  private unreadable(reason: string, serialNo: number | undefined): void {
    const held = this.unreadableLog.take(this.mono());
    if (held === undefined) return;
    this.log().warn(
      { serialNo, reason, ...(held > 0 ? { notLogged: held } : {}) },
      `terminal ${this.cfg.name} streamed an event punchgate cannot read (${reason}): skipped`,
    );
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), ms);
    this.timer.unref?.();
  }
}
