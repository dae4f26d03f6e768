import type { BlockList } from 'node:net';
import type { HikvisionTerminalConfig } from '../../config/terminals.js';
import { allowed, allowList } from '../../util/allow-list.js';
import { LogBudget } from '../../util/log-budget.js';
import { answer } from '../http-answer.js';
import { journalSyncedApart } from '../journal-synced-apart.js';
import type { ListenEndpoint, ListenedPost } from '../listen.js';
import { logReceived } from '../punch-log.js';
import type { SourceDeps } from '../types.js';
import { classify } from './events.js';
import { eventJsonOf, xmlField } from './isapi.js';
import { readPost } from './listen-post.js';
import { UnlistedPassLog } from './unlisted-log.js';
import { LISTEN_KEY, LISTEN_REFUSED_KEY, MAC_KEY, macShown, sameMac, type ListenRefusals } from './listen-state.js';
import { accessEventOf } from './realtime.js';
import type { UnknownMinorLog } from './unknown-minors.js';

export interface ListenHooks {
  /** The device serial punches are filed under (learnt by polling): the same identity as the poll's. */
  serial: () => string;
  /** Ask a poll (the backstop) now: the serial is not known yet, or the journal could not take a post. */
  backfill: () => void;
  /** Minors of a newer firmware, said once per code for the terminal (the poller's: unknown-minors.ts). */
  unknownMinors?: UnknownMinorLog;
}

/** Log lines about strangers, and about malformed posts: at most 5 in 10 minutes each. */
const LOG_MAX = 5;
const LOG_WINDOW_MS = 10 * 60_000;
/** The refusals are written to the journal at most this often (a flood is one write every few seconds). */
const REFUSALS_WRITE_MS = 5000;
/** A post that carried no punch moves the "last posted" time in the journal at most this often. */
const CONTACT_WRITE_MS = 60_000;
/** What a device is told to wait before it posts again, when the gateway cannot keep a punch now. */
const RETRY_AFTER_S = '10';

/** The address in the terminal's url, when it is one (a host name is resolved by nobody here). */
function urlAddress(url: string): string | undefined {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return /^[\d.]+$|:/.test(host) ? host : undefined;
}

/**
 * The endpoint of one Hikvision terminal that posts its events (HTTP Listening). A post is
 * answered 200 only once its punch is journalled (or it carries nothing to keep); while the
 * journal cannot take it, 503, and the terminal posts it again. Who may post: the terminal's
 * address (`allowFrom`, else the address of its `url`); anyone else is refused (403) before its
 * body is read, counted, logged at a bounded rate and shown in the status, and changes nothing.
 *
 * A pushed punch is the same punch as the one the poll reads from the event search (same device
 * serial, code and wall-clock time): the journal keeps one. The poll stays the backstop.
 */
export class HikvisionListenEndpoint implements ListenEndpoint {
  readonly terminal: string;
  private readonly allow: BlockList | null;
  private readonly minors: ReadonlySet<number>;
  private readonly strangerLog = new LogBudget(LOG_MAX, LOG_WINDOW_MS);
  private readonly malformedLog = new LogBudget(LOG_MAX, LOG_WINDOW_MS);
  /** Passes `minors` leaves out: said, a line per 10 minutes at most. */
  private readonly unlistedLog: UnlistedPassLog;
  private refusals: ListenRefusals | undefined;
  private refusalsWrittenAt = 0;
  private refusalsTimer: NodeJS.Timeout | undefined;
  private contactWrittenAt = 0;

  constructor(
    private readonly cfg: HikvisionTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly hooks: ListenHooks,
  ) {
    this.terminal = cfg.name;
    const own = urlAddress(cfg.url);
    this.allow = allowList(cfg.allowFrom ?? (own ? [own] : []));
    this.minors = new Set(cfg.minors);
    this.unlistedLog = new UnlistedPassLog(this.minors, `terminal ${cfg.name}, HTTP Listening`);
  }

  private log() {
    return this.deps.logger.child({ terminal: this.cfg.name, link: 'httpListening' });
  }

  async handle({ req, res, address }: ListenedPost): Promise<void> {
    if (!allowed(this.allow, address)) return this.refuse(req, res, address);
    const got = await readPost(req);
    const log = this.log();
    switch (got.kind) {
      case 'aborted':
        return; // the device posts it again
      case 'too-large':
        this.malformed(`a post of more than ${got.bytes} bytes`);
        return answer(req, res, 413, 'too large');
      case 'malformed':
        this.malformed(got.reason);
        return answer(req, res, 400, 'malformed');
      case 'unreadable-coding':
        // Never OK: nothing of it could be read; the terminal posts it again, the poll reads the log.
        this.malformed(
          `a post compressed as "${got.coding}" (Content-Encoding): ${got.why}; switch compression off on the proxy between the terminal and this box, if there is one`,
        );
        return answer(
          req,
          res,
          415,
          `compressed as ${got.coding}, which the gateway cannot read; send it uncompressed`,
        );
      case 'no-event':
        this.malformed('a multipart post without an event part');
        return answer(req, res, 400, 'no event part');
    }
    const e = accessEventOf(got.part);
    if (!e) {
      // Another kind of event (a heartbeat, a tamper alarm...) is answered: nothing of it is kept.
      if (isAnotherEvent(got.part.body)) {
        this.contact();
        return answer(req, res, 200, 'OK');
      }
      this.malformed('a post that is neither JSON nor an XML event');
      return answer(req, res, 400, 'malformed');
    }
    const mac = macOf(got.part.body);
    const known = this.knownMac();
    if (mac && known && !sameMac(mac, known)) {
      // From the terminal's address but another device (the address was given to it): not its events.
      return this.refuse(req, res, address, { mac: macShown(mac), known });
    }
    let device: string;
    try {
      device = this.hooks.serial();
    } catch {
      return answer(req, res, 503, 'cannot keep it now; retry', { 'Retry-After': RETRY_AFTER_S });
    }
    if (device === '') {
      // No poll has read the device's serial number yet: filed without it, the punch would not be
      // known as the same punch when the poll reads it. The poll runs now; the device retries.
      this.hooks.backfill();
      return answer(req, res, 503, 'not ready; retry', { 'Retry-After': RETRY_AFTER_S });
    }
    const c = classify(e, this.cfg.name, device, this.minors);
    if (c.kind === 'malformed') {
      this.malformed(c.reason);
      this.contact();
      return answer(req, res, 200, 'OK');
    }
    if (c.kind === 'other') {
      this.unlistedLog.note(e, this.deps.clock.now(), log);
      this.hooks.unknownMinors?.note(e, log);
      this.contact();
      return answer(req, res, 200, 'OK');
    }
    try {
      const now = this.deps.clock.now();
      const skew = this.deps.ledger.get(this.cfg.name)?.skewSeconds ?? undefined;
      const { result: r, synced } = journalSyncedApart(this.deps.sink, [c.punch], {
        timezone: this.cfg.timezone,
        currentSkewSeconds: skew,
        state: { terminal: this.cfg.name, key: LISTEN_KEY, value: JSON.stringify({ lastPostAt: now }) },
      });
      this.contactWrittenAt = now;
      if (r.added > 0) this.deps.onPunches?.(r.added);
      logReceived(log, this.cfg.name, 1, r);
      // Answered OK only once the punch is on the disk; the sync is made beside the event loop.
      await synced;
    } catch (err) {
      log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'a posted punch could not be journalled now: the terminal is asked to post it again',
      );
      return answer(req, res, 503, 'cannot keep it now; retry', { 'Retry-After': RETRY_AFTER_S });
    }
    answer(req, res, 200, 'OK');
  }

  /** The terminal posted something with no punch: its "last posted" time moves (at most once a minute). */
  private contact(): void {
    const now = this.deps.clock.now();
    if (now - this.contactWrittenAt < CONTACT_WRITE_MS) return;
    this.contactWrittenAt = now;
    try {
      this.deps.state.set({ terminal: this.cfg.name, key: LISTEN_KEY, value: JSON.stringify({ lastPostAt: now }) });
    } catch {
      /* the journal is busy: the next post writes it */
    }
  }

  private malformed(reason: string): void {
    const held = this.malformedLog.take(this.deps.clock.now());
    if (held === undefined) return;
    this.log().warn(
      { reason, ...(held > 0 ? { notLogged: held } : {}) },
      `terminal ${this.cfg.name} posted an event punchgate cannot read (${reason}); the poll reads the terminal's log`,
    );
  }

  private knownMac(): string | undefined {
    try {
      return this.deps.state.get(this.cfg.name, MAC_KEY);
    } catch {
      return undefined; // a busy journal: the address rule still holds
    }
  }

  private refuse(
    req: ListenedPost['req'],
    res: ListenedPost['res'],
    address: string,
    other?: { mac: string; known: string },
  ): void {
    const now = this.deps.clock.now();
    this.refusals = {
      address,
      count: (this.refusals?.count ?? 0) + 1,
      lastAt: now,
      ...(other ? { mac: other.mac } : {}),
    };
    this.writeRefusals();
    const held = this.strangerLog.take(now);
    if (held !== undefined)
      this.log().warn(
        { address, ...(other ? { mac: other.mac } : {}), ...(held > 0 ? { notLogged: held } : {}) },
        other
          ? `${address} posted events to the path of terminal ${this.cfg.name} with the MAC address ${other.mac}, but the terminal's is ${other.known}: another device at its address; refused, nothing kept; if the terminal was replaced, its next poll learns the new one`
          : `${address} posted events to the path of terminal ${this.cfg.name}, which posts from ${this.cfg.allowFrom?.join(', ') ?? urlAddress(this.cfg.url) ?? '(no address)'}: refused, nothing kept; if the terminal itself moved to ${address}, set allowFrom: [${address}] for ${this.cfg.name} and reload`,
      );
    answer(req, res, 403, 'refused');
  }

  /** Writes the refusals now, or once REFUSALS_WRITE_MS after the last write. */
  private writeRefusals(): void {
    if (this.refusalsTimer) return;
    const wait = REFUSALS_WRITE_MS - (this.deps.clock.now() - this.refusalsWrittenAt);
    const write = () => {
      this.refusalsTimer = undefined;
      this.refusalsWrittenAt = this.deps.clock.now();
      try {
        this.deps.state.set({ terminal: this.cfg.name, key: LISTEN_REFUSED_KEY, value: JSON.stringify(this.refusals) });
      } catch {
        /* the journal is busy: the next refusal writes it */
      }
    };
    if (wait <= 0) return write();
    this.refusalsTimer = setTimeout(write, wait);
    this.refusalsTimer.unref();
  }

  /** Writes what is still held (the refusals). */
  stop(): void {
    if (this.refusalsTimer) {
      clearTimeout(this.refusalsTimer);
      this.refusalsTimer = undefined;
      this.refusalsWrittenAt = 0;
      this.writeRefusals();
    }
  }
}

/** The sender's MAC address as the event says it (`macAddress`, JSON or XML), if it does. */
function macOf(body: Buffer): string | undefined {
  const text = body.toString('utf8').trim();
  if (text.startsWith('<')) return xmlField(text, 'macAddress') || undefined;
  const o = eventJsonOf(text);
  return typeof o?.macAddress === 'string' && o.macAddress !== '' ? o.macAddress : undefined;
}

/** A readable event of another type than AccessControllerEvent (JSON or XML). */
function isAnotherEvent(body: Buffer): boolean {
  const text = body.toString('utf8').trim();
  if (text.startsWith('<')) return xmlField(text, 'eventType') !== undefined;
  return typeof eventJsonOf(text)?.eventType === 'string';
}
