import { readFileSync } from 'node:fs';
import type { HikvisionTerminalConfig } from '../../config/terminals.js';
import { deviceIdentity, wallClockAt, wallClockDiffSeconds } from '../../punch.js';
import { logPolled } from '../punch-log.js';
import {
  AcceptedPassword,
  checkSerial,
  ClientForPassword,
  cursorCommit,
  endedEarly,
  notTheTerminals,
  passwordIfReadable,
  passwordWorksAgain,
  reachedFields,
  recordPollFault,
  settleRead,
} from '../http-poll.js';
import { configKeyOf, noteWorking, type TerminalFault } from '../poll-outcome.js';
import { describeHikFault, lacksEventSearch } from './fault.js';
import type { SourceDeps } from '../types.js';
import type { Logger } from '../../util/logger.js';
import { nextAuthTry, readRefusal, recordRefusal, refusalText } from './auth-gate.js';
import { HikvisionClient } from './client.js';
import { HikAuthError, HikConnectionError, HikSetupError, HikStaleNonceError } from './errors.js';
import {
  cursorKey,
  END_SERIAL,
  formatCursor,
  parseCursor,
  readEvents,
  type EventCursor,
  type FilterMode,
  type ReadLimits,
  type ReadResult,
} from './event-reader.js';
import { unlistedWords } from './events.js';
import { UnknownMinorLog } from './unknown-minors.js';
import { MAX_POLL_PAGES, monotonicNow, POLL_DEADLINE_MS } from './limits.js';
import { rememberMac } from './listen-state.js';
import { writeNote, type NoteWords } from './notes.js';
import { syncTerminalClock } from '../clock-sync.js';
import { passwordPlace, readTerminalPassword, type TerminalPassword } from './password.js';

export interface HikPollResult {
  terminal: string;
  ok: boolean;
  /** The poll did not reach out: a refused password's wait is not over. */
  waiting: boolean;
  serial: string;
  added: number;
  duplicates: number;
  quarantined: number;
  /** Events read, authentication passes among them, pages asked for. */
  rows: number;
  passes: number;
  pages: number;
  mode: FilterMode;
  skewSeconds: number | null;
  users: number | null;
  error?: string;
  /** The password was refused (now, or earlier and the wait is not over). */
  authRefused: boolean;
  /** Not the terminal being unreachable (a refused password has its own wait): see PollOutcome. */
  noBackoff?: boolean;
  /** The terminal accepted the password this time. */
  reached: boolean;
  /** Reading stopped at a bound before the device's answer ended (what was read is journalled), in words. */
  stopped?: string;
  /** Events numbered or dated implausibly (read, never the cursor's). */
  implausible: number;
  /** The firmware has no event search and the terminal posts its events (listen: true): read by its posts alone. */
  listeningOnly?: boolean;
  /** Authentication passes whose minor `minors` leaves out (not punches), by minor. */
  unlisted?: Record<number, number>;
}

/** Builds the client of a terminal (tests point it at the simulator with their own options). */
export type HikClientFactory = (cfg: HikvisionTerminalConfig, password: string) => Promise<HikvisionClient>;

export const defaultHikClientFactory: HikClientFactory = (cfg, password) =>
  HikvisionClient.open({
    url: cfg.url,
    username: cfg.username,
    password,
    timeoutMs: cfg.timeoutMs,
    tlsFingerprint: cfg.tlsFingerprint,
    ca: cfg.caFile ? readFileSync(cfg.caFile) : undefined,
  });

/**
 * Polls one Hikvision terminal: identity (serial number, swap detection), clock (skew, maybe
 * set), user count, then the events since the journal's cursor. Keeps its connection (and the
 * Digest nonce) between polls. Never throws: trouble is in the result and the terminals ledger.
 */
/** The status line of a poll stopped at a bound: the cause, and the fix to try. */
function pollNote(stopped: string, deviceFault: boolean): NoteWords {
  return deviceFault
    ? endedEarly(stopped)
    : {
        cause: `its log is larger than one poll reads (${stopped}); nothing is lost`,
        fix: 'if this lasts for hours, check the network to the terminal',
      };
}

export class HikvisionPoller {
  private readonly client = new ClientForPassword<HikvisionClient>();
  /** Learned per process: firmware without serial filters is read by time window. */
  private mode: FilterMode = 'serial';
  /** Learned per process: the end of the serial range the firmware accepts. */
  private endSerial = END_SERIAL;
  /** Learned per process: the firmware has no event search (listening only), said once. */
  private noSearch = false;
  /** The password the terminal last accepted (in memory only). */
  private readonly accepted = new AcceptedPassword(() => readTerminalPassword(this.cfg, this.env));
  /** Minors of a newer firmware, said once per code: shared with the alert stream and HTTP Listening. */
  readonly unknownMinors: UnknownMinorLog;

  constructor(
    private readonly cfg: HikvisionTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly factory: HikClientFactory = defaultHikClientFactory,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** Tests commit more often than every 10,000 events, or bound a poll tighter. */
    private readonly tuning: { commitRows?: number; maxPages?: number; deadlineMs?: number } = {},
  ) {
    this.unknownMinors = new UnknownMinorLog(cfg.name, new Set(cfg.minors));
  }

  /** The client for the current password (a new one when the password changed). */
  async clientFor(pw: TerminalPassword): Promise<HikvisionClient> {
    return (
      this.client.current(pw.password, (c) => void c.http.close()) ??
      this.client.keep(pw.password, await this.factory(this.cfg, pw.password))
    );
  }

  /** The password, unless a refusal's wait is not over (then undefined, and the ledger says why). */
  passwordIfAllowed(): { pw: TerminalPassword } | { waitUntil: number; message: string } {
    const { cfg, deps } = this;
    const pw = readTerminalPassword(cfg, this.env);
    const now = deps.clock.now();
    const refusal = readRefusal(deps.state, cfg.name);
    const next = nextAuthTry(refusal, pw.changedAt, now);
    if (refusal && next !== undefined && next > now) {
      return { waitUntil: next, message: refusalText(cfg.name, refusal, next, now, passwordPlace(pw)) };
    }
    return { pw };
  }

  /**
   * The terminal accepted the password it now has in the config: the alert stream opens only
   * then, so that a wrong password is tried by one poll at a time, never by the stream as well.
   */
  passwordAccepted(): boolean {
    return this.accepted.holds();
  }

  /** Records a refused password (the wait starts) and returns the status line. */
  refused(e: HikAuthError): string {
    const { cfg, deps } = this;
    this.accepted.refused();
    const now = deps.clock.now();
    const r = recordRefusal(deps.state, cfg.name, e, now);
    const pw = passwordIfReadable(() => readTerminalPassword(cfg, this.env));
    const msg = refusalText(cfg.name, r, nextAuthTry(r, pw?.changedAt ?? null, now), now, pw && passwordPlace(pw));
    deps.logger.child({ terminal: cfg.name }).error({ refusals: r.refusals, locked: r.locked }, msg);
    return msg;
  }

  /**
   * Runs `fn` with a client, keeping to the password rule: not while a refusal's wait lasts
   * (throws HikAuthError with the status line), and a refusal met here is recorded for the
   * daemon too (thrown as HikAuthError with the status line). For one-shot work on the terminal
   * (`terminals users`, the roster sync); the connection is closed afterwards.
   */
  async withClient<T>(fn: (client: HikvisionClient) => Promise<T>): Promise<T> {
    const allowed = this.passwordIfAllowed();
    if ('waitUntil' in allowed) throw new HikAuthError(allowed.message, false);
    try {
      const result = await fn(await this.clientFor(allowed.pw));
      if (this.accepted.accepted(allowed.pw.password, this.deps, this.cfg.name))
        this.deps.logger.info({ terminal: this.cfg.name }, passwordWorksAgain(this.cfg.name));
      await this.close();
      return result;
    } catch (e) {
      this.destroy();
      if (e instanceof HikStaleNonceError) throw new HikStaleNonceError(this.refused(e));
      if (e instanceof HikAuthError) throw new HikAuthError(this.refused(e), e.locked, e.unlockSeconds, e.triesLeft);
      throw e;
    }
  }

  async poll(signal?: AbortSignal): Promise<HikPollResult> {
    const { cfg, deps } = this;
    const { ledger, clock } = deps;
    const log = deps.logger.child({ terminal: cfg.name });
    const result: HikPollResult = {
      terminal: cfg.name,
      ok: false,
      waiting: false,
      serial: '',
      added: 0,
      duplicates: 0,
      quarantined: 0,
      rows: 0,
      passes: 0,
      pages: 0,
      mode: this.mode,
      skewSeconds: null,
      users: null,
      authRefused: false,
      reached: false,
      implausible: 0,
    };
    const startedAt = clock.now();
    // The poll's bounds, on the monotonic clock: a box clock step neither ends it nor prolongs it.
    const limits: ReadLimits = {
      maxPages: this.tuning.maxPages ?? MAX_POLL_PAGES,
      deadline: monotonicNow() + (this.tuning.deadlineMs ?? POLL_DEADLINE_MS),
    };
    let reached = false;
    try {
      const allowed = this.passwordIfAllowed();
      if ('waitUntil' in allowed) {
        Object.assign(result, { waiting: true, authRefused: true, error: allowed.message });
        const [cause, fix] = splitAt(allowed.message);
        ledger.update(cfg.name, { online: false, lastError: cause, lastErrorFix: fix });
        return result;
      }
      const client = await this.clientFor(allowed.pw);
      const info = await client.deviceInfo(signal);
      reached = true;
      result.reached = true;
      if (this.accepted.accepted(allowed.pw.password, deps, cfg.name)) log.info(passwordWorksAgain(cfg.name));
      const serial = deviceIdentity(info.serialNumber);
      result.serial = serial;
      // A terminal that posts its events: its posts must carry this MAC address (listen-endpoint.ts).
      if (cfg.listen && info.macAddress) rememberMac(deps.state, cfg.name, info.macAddress);
      const known = checkSerial(deps, log, cfg.name, serial);
      // The identity is known from here, whatever the rest of the poll does: HTTP Listening files
      // posts under it, and refuses them (503) until it is known. Written only at the end of a
      // whole poll, it was never written for a terminal whose firmware has no event search (one
      // that only posts its events): every post was refused, and its punches were never kept.
      if (serial && serial !== known?.serial) ledger.update(cfg.name, { serial });

      const deviceNow = await client.getTime(signal);
      result.skewSeconds = wallClockDiffSeconds(deviceNow.wallClock, wallClockAt(clock.now(), cfg.timezone));
      await syncTerminalClock(
        cfg,
        result.skewSeconds,
        { clockSteps: deps.clockSteps, log },
        () => client.setTime(wallClockAt(clock.now(), cfg.timezone), deviceNow, signal),
        (words) => this.note('clock', words),
      );
      result.users = await client.users.count(signal).catch(() => null);

      const key = cursorKey(serial);
      const commit = cursorCommit<EventCursor>(
        deps,
        { terminal: cfg.name, timezone: cfg.timezone, key, skewSeconds: result.skewSeconds },
        formatCursor,
      );
      let read: ReadResult;
      try {
        read = await readEvents({
          client,
          terminal: cfg.name,
          device: serial,
          minors: new Set(cfg.minors),
          unknownMinors: this.unknownMinors,
          cursor: parseCursor(deps.state.get(cfg.name, key)),
          mode: this.mode,
          endSerial: this.endSerial,
          overlapMinutes: cfg.overlapMinutes,
          deviceNow,
          commit,
          log,
          signal,
          commitRows: this.tuning.commitRows,
          limits,
        });
      } catch (e) {
        // Firmware without an event search (it only posts its events), set to post to us: its
        // punches come by HTTP Listening, and a poll that read its identity and clock did all
        // such a terminal offers. Not a failed poll each interval: that told the admin a working
        // terminal was broken. The search is asked again at each poll (a firmware update adds it).
        if (!(cfg.listen && lacksEventSearch(e))) throw e;
        this.listeningOnly(e, log);
        result.ok = true;
        result.listeningOnly = true;
        noteWorking(known, log, cfg.name, clock.now());
        ledger.update(cfg.name, {
          ...reachedFields(serial, known, startedAt, undefined, clock.now()),
          skewSeconds: result.skewSeconds,
          users: result.users ?? undefined,
          firmware: [info.model, info.firmwareVersion].filter(Boolean).join(' ') || null,
        });
        return result;
      }
      if (this.noSearch) {
        log.info(`terminal ${cfg.name} answers the event search now: its log is read by the poll again`);
        this.noSearch = false;
      }
      this.mode = read.mode;
      this.endSerial = read.endSerial;
      Object.assign(result, {
        mode: read.mode,
        added: read.added,
        duplicates: read.duplicates,
        quarantined: read.quarantined,
        rows: read.rows,
        passes: read.passes,
        pages: read.pages,
        implausible: read.implausible,
      });
      if (read.unlisted) {
        result.unlisted = read.unlisted;
        log.warn({ unlisted: read.unlisted }, unlistedWords(read.unlisted));
      }
      this.noteEvents(read, log);
      settleRead(result, read, known, log, cfg.name, clock.now());
      this.note('poll', read.stopped ? pollNote(read.stopped, read.deviceFault === true) : null);
      ledger.update(cfg.name, {
        ...reachedFields(serial, known, startedAt, read.stopped, clock.now()),
        skewSeconds: result.skewSeconds,
        users: result.users ?? undefined,
        firmware: [info.model, info.firmwareVersion].filter(Boolean).join(' ') || null,
      });
      logPolled(log, cfg.name, result);
    } catch (e) {
      // A connection in a bad state is not reused.
      this.destroy();
      if (notTheTerminals(e, signal, result, log)) return result;
      let fault: TerminalFault;
      if (e instanceof HikAuthError) {
        result.authRefused = true;
        result.error = this.refused(e);
        // "reception refuses the password: put ..." (led by the terminal's name: the status says it at once).
        const [cause, fix] = splitAt(result.error);
        fault = { cause, fix };
        reached = false;
      } else {
        fault = describeHikFault(e, cfg, configKeyOf(deps, cfg.name));
        // Only the admin can fix it: the status says so at once (a last error led by the terminal's name).
        if (e instanceof HikSetupError) fault = { ...fault, cause: `${cfg.name} cannot be polled: ${fault.cause}` };
        result.error = fault.cause;
        if (e instanceof HikConnectionError && e.code === 'ANSWER_TOO_LARGE')
          this.note('poll', pollNote(e.message, true));
      }
      // A poll that stopped at a bound before it failed is not counted as the terminal's failure.
      if (!result.noBackoff) recordPollFault(ledger, log, cfg.name, { reached, startedAt, fault }, e);
    }
    return result;
  }

  /** Said once (and again after the search came and went): the terminal is read by its posts alone. */
  private listeningOnly(e: Error, log: Logger): void {
    if (this.noSearch) return;
    this.noSearch = true;
    log.warn(
      { err: e.message },
      `terminal ${this.cfg.name} has no event search (firmware that only posts its events): its punches come by HTTP Listening alone, and a post the terminal could not deliver is not read back by a poll`,
    );
  }

  /** Writes (or clears) a note for the status alerts: see notes.ts. */
  private note(topic: Parameters<typeof writeNote>[2], words: NoteWords | null): void {
    const { deps, cfg } = this;
    writeNote(deps.state, cfg.name, topic, words, deps.clock.now(), deps.logger.child({ terminal: cfg.name }));
  }

  /** Implausible events and a read position set back are said in the status for a day. */
  private noteEvents(read: ReadResult, log: Logger): void {
    if (read.implausible > 0) {
      const n = read.implausible;
      this.note('events', {
        cause: `${n} ${n === 1 ? 'event' : 'events'} numbered or dated implausibly (${read.implausibleExample}): read (a pass with an impossible time is quarantined), but the read position stays below ${n === 1 ? 'it' : 'them'}, so later passes keep coming`,
        fix: "if it goes on, check the terminal's clock and firmware",
      });
    }
    if (read.cursorLost) {
      log.warn({ cursor: read.cursor }, 'read position set back');
      this.note('cursor', {
        cause: read.cursorLost,
        fix: "nothing to do unless it happens again (then check the terminal's clock and firmware)",
      });
    }
  }

  async close(): Promise<void> {
    await this.client.take()?.http.close();
  }

  destroy(): void {
    this.client.take()?.http.destroy();
  }
}

/** A refusal line `what: fix` taken apart at its first ": " (its cause leads, its fix follows). */
function splitAt(line: string): [string, string] {
  const i = line.indexOf(': ');
  return i < 0 ? [line, 'put the right password in the password file'] : [line.slice(0, i), line.slice(i + 2)];
}
