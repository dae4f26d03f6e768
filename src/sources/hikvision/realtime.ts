import type { HikvisionTerminalConfig } from '../../config/terminals.js';
import { backoffDelay } from '../../util/backoff.js';
import { logReceived } from '../punch-log.js';
import type { SourceDeps } from '../types.js';
import type { HikvisionClient } from './client.js';
import { HikAuthError } from './errors.js';
import { classify, fromAlert, type AccessEvent } from './events.js';
import { isObject, xmlField, type Json } from './isapi.js';
import { boundaryOf, MultipartStreamParser, type StreamPart } from './multipart.js';

export const ALERT_STREAM_PATH = '/ISAPI/Event/notification/alertStream';
/** Reconnect waits of the alert stream: 1 s doubling to a minute. */
const RECONNECT = { baseMs: 1000, maxMs: 60_000 };

/** The access event in one alert-stream part (JSON or XML), or undefined for anything else (heartbeats, pictures). */
export function accessEventOf(part: StreamPart): AccessEvent | undefined {
  const text = part.body.toString('utf8').trim();
  if (text.startsWith('{')) {
    let o: unknown;
    try {
      o = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isObject(o) || o.eventType !== 'AccessControllerEvent' || !isObject(o.AccessControllerEvent)) return undefined;
    return fromAlert(o, o.AccessControllerEvent);
  }
  if (text.startsWith('<') && xmlField(text, 'eventType') === 'AccessControllerEvent') {
    const inner: Json = {};
    for (const f of ['majorEventType', 'subEventType', 'serialNo']) {
      const v = xmlField(text, f);
      if (v !== undefined && /^\d+$/.test(v)) inner[f] = Number(v);
    }
    for (const f of ['employeeNoString', 'employeeNo', 'cardNo', 'attendanceStatus']) {
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
  /** The stream is open: read by serial number what arrived while it was down (backfill). */
  onOpen: () => void;
}

/**
 * The device's alert stream, kept open: each authentication pass is journalled as it arrives.
 * After every (re)connect the poller backfills by serial number, and polling stays the backstop.
 */
export class AlertStreamLink {
  private stopped = false;
  /** Connecting or connected: a nudge does nothing then. */
  private active = false;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private abort: AbortController | undefined;
  private closeStream: (() => void) | undefined;
  private readonly minors: ReadonlySet<number>;

  constructor(
    private readonly cfg: HikvisionTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly hooks: AlertStreamHooks,
  ) {
    this.minors = new Set(cfg.minors);
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  /** A poll just proved the password: connect now if the link is waiting for that. */
  nudge(): void {
    if (this.stopped || this.active) return;
    clearTimeout(this.timer);
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort?.abort();
    this.closeStream?.();
  }

  private log() {
    return this.deps.logger.child({ terminal: this.cfg.name, link: 'alertStream' });
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const wait = this.hooks.authWaitUntil();
    if (wait !== undefined) {
      // No poll has proven the password yet, or a refusal's wait: the poller's rule applies here
      // too (devices lock the account); a successful poll nudges the link.
      this.schedule(Math.max(1000, wait - this.deps.clock.now()));
      return;
    }
    const log = this.log();
    this.abort = new AbortController();
    this.active = true;
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
      this.failures = 0;
      this.hooks.onOpen();
      const parser = new MultipartStreamParser(boundary, (part) => this.onPart(part));
      for await (const chunk of s.body) parser.push(chunk as Buffer);
      s.close();
      this.active = false;
      this.retry(new Error('the device ended the alert stream'));
    } catch (e) {
      this.closeStream?.();
      this.active = false;
      if (e instanceof HikAuthError) this.hooks.onAuthRefused(e);
      this.retry(e);
    }
  }

  private onPart(part: StreamPart): void {
    const e = accessEventOf(part);
    if (!e) return;
    const c = classify(e, this.cfg.name, this.hooks.serial(), this.minors);
    if (c.kind !== 'punch') return;
    const r = this.deps.sink.ingest([c.punch], { timezone: this.cfg.timezone });
    if (r.added > 0) this.deps.onPunches?.(r.added);
    const log = this.log();
    logReceived(log, this.cfg.name, 1, r);
    log.debug({ code: c.punch.biometricCode, logTime: c.punch.logTime, added: r.added }, 'real-time punch');
  }

  private retry(err: unknown): void {
    if (this.stopped) return;
    this.failures++;
    const delay = backoffDelay(this.failures - 1, RECONNECT);
    if (this.failures === 1)
      this.log().info(
        `terminal ${this.cfg.name}: real-time events paused (the alert stream dropped): polls go on, nothing is missed`,
      );
    this.log().debug(
      { err: err instanceof Error ? err.message : String(err), retryInMs: delay },
      'alert stream down, reconnecting',
    );
    this.schedule(delay);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), ms);
    this.timer.unref?.();
  }
}
