import { readFileSync } from 'node:fs';
import type { HikvisionTerminalConfig } from '../../config/terminals.js';
import { deviceIdentity, wallClockAt, wallClockDiffSeconds, type Punch } from '../../punch.js';
import { isBusyJournalError } from '../../journal/errors.js';
import { logPolled } from '../punch-log.js';
import {
  BUSY_JOURNAL_POLL_ERROR,
  configKeyOf,
  noteWorking,
  recordFailedPoll,
  type TerminalFault,
} from '../poll-outcome.js';
import { describeHikFault } from './fault.js';
import { agreesBeforeBoxStep, BOX_STEPPED_NOT_SET, type SourceDeps } from '../types.js';
import type { Logger } from '../../util/logger.js';
import { clearRefusal, nextAuthTry, readRefusal, recordRefusal, refusalText } from './auth-gate.js';
import { HikvisionClient } from './client.js';
import { HikAuthError, HikConnectionError, HikSetupError } from './errors.js';
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
import { MAX_POLL_PAGES, monotonicNow, POLL_DEADLINE_MS } from './limits.js';
import { rememberMac } from './listen-state.js';
import { writeNote, type NoteWords } from './notes.js';
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
    ? {
        cause: `a poll ended early: ${stopped}; what was read before is kept, and every poll stops there again`,
        fix: 'restart the terminal, and update its firmware if it goes on',
      }
    : {
        cause: `its log is larger than one poll reads (${stopped}); nothing is lost`,
        fix: 'if this lasts for hours, check the network to the terminal',
      };
}

export class HikvisionPoller {
  private client: { c: HikvisionClient; password: string } | undefined;
  /** Learned per process: firmware without serial filters is read by time window. */
  private mode: FilterMode = 'serial';
  /** Learned per process: the end of the serial range the firmware accepts. */
  private endSerial = END_SERIAL;
  /** The password the terminal last accepted (in memory only). */
  private accepted: string | undefined;

  constructor(
    private readonly cfg: HikvisionTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly factory: HikClientFactory = defaultHikClientFactory,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** Tests commit more often than every 10,000 events, or bound a poll tighter. */
    private readonly tuning: { commitRows?: number; maxPages?: number; deadlineMs?: number } = {},
  ) {}

  /** The client for the current password (a new one when the password changed). */
  async clientFor(pw: TerminalPassword): Promise<HikvisionClient> {
    if (this.client && this.client.password !== pw.password) {
      void this.client.c.http.close();
      this.client = undefined;
    }
    this.client ??= { c: await this.factory(this.cfg, pw.password), password: pw.password };
    return this.client.c;
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
    try {
      return this.accepted !== undefined && readTerminalPassword(this.cfg, this.env).password === this.accepted;
    } catch {
      return false;
    }
  }

  /** Records a refused password (the wait starts) and returns the status line. */
  refused(e: HikAuthError): string {
    const { cfg, deps } = this;
    this.accepted = undefined;
    const now = deps.clock.now();
    const r = recordRefusal(deps.state, cfg.name, e, now);
    let pw: TerminalPassword | undefined;
    try {
      pw = readTerminalPassword(cfg, this.env);
    } catch {
      /* the file went away: the wait applies */
    }
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
      this.accepted = allowed.pw.password;
      if (clearRefusal(this.deps.state, this.cfg.name))
        this.deps.logger.info({ terminal: this.cfg.name }, `terminal ${this.cfg.name}: the password is accepted again`);
      await this.close();
      return result;
    } catch (e) {
      this.destroy();
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
      this.accepted = allowed.pw.password;
      if (clearRefusal(deps.state, cfg.name)) log.info(`terminal ${cfg.name}: the password is accepted again`);
      const serial = deviceIdentity(info.serialNumber);
      result.serial = serial;
      // A terminal that posts its events: its posts must carry this MAC address (listen-endpoint.ts).
      if (cfg.listen && info.macAddress) rememberMac(deps.state, cfg.name, info.macAddress);
      const known = ledger.get(cfg.name);
      if (known?.serial && serial && known.serial !== serial) {
        log.warn(
          { was: known.serial, now: serial },
          'terminal answers with another serial number: device swapped or address changed; its punches are kept apart',
        );
        ledger.update(cfg.name, { previousSerial: known.serial, serialChangedAt: clock.now() });
      }

      const deviceNow = await client.getTime(signal);
      result.skewSeconds = wallClockDiffSeconds(deviceNow.wallClock, wallClockAt(clock.now(), cfg.timezone));
      if (cfg.syncClock && Math.abs(result.skewSeconds) > cfg.skewThresholdSeconds) {
        if (agreesBeforeBoxStep(result.skewSeconds, deps.clockSteps, cfg.skewThresholdSeconds)) {
          log.warn({ skewSeconds: result.skewSeconds }, BOX_STEPPED_NOT_SET);
        } else {
          await client.setTime(wallClockAt(clock.now(), cfg.timezone), deviceNow, signal);
          log.info({ skewSeconds: result.skewSeconds }, 'terminal clock set to the box clock');
        }
      }
      result.users = await client.users.count(signal).catch(() => null);

      const key = cursorKey(serial);
      const commit = (punches: Punch[], cursor: EventCursor) => {
        const r = deps.sink.ingest(punches, {
          timezone: cfg.timezone,
          // Judged "in the future" against the terminal's own clock as read in this poll.
          currentSkewSeconds: result.skewSeconds ?? undefined,
          state: { terminal: cfg.name, key, value: formatCursor(cursor) },
        });
        if (r.added > 0) deps.onPunches?.(r.added);
        return r;
      };
      const read = await readEvents({
        client,
        terminal: cfg.name,
        device: serial,
        minors: new Set(cfg.minors),
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
      this.noteEvents(read, log);
      // A poll stopped at a bound did not finish: not healthy (an alert names the terminal), but
      // what it read is journalled, and a large log read over several polls is no unreachable terminal.
      result.ok = !read.stopped;
      if (read.stopped) {
        result.stopped = read.stopped;
        result.error = read.stopped;
        result.noBackoff = !read.deviceFault;
        log.warn({ err: read.stopped, rows: read.rows, pages: read.pages }, 'poll stopped at a bound');
      } else noteWorking(known, log, cfg.name, clock.now());
      this.note('poll', read.stopped ? pollNote(read.stopped, read.deviceFault === true) : null);
      ledger.update(cfg.name, {
        serial: serial || known?.serial || '',
        online: true,
        lastPollAt: startedAt,
        ...(read.stopped ? {} : { lastSuccessAt: clock.now() }),
        offlineSince: null,
        lastError: read.stopped ?? null,
        skewSeconds: result.skewSeconds,
        users: result.users ?? undefined,
        firmware: [info.model, info.firmwareVersion].filter(Boolean).join(' ') || null,
      });
      logPolled(log, cfg.name, result);
    } catch (e) {
      if (signal?.aborted) {
        // Stopping: whatever was journalled stays journalled; the terminal's state is unchanged.
        this.destroy();
        result.error = 'stopped';
        return result;
      }
      let fault: TerminalFault | undefined;
      if (isBusyJournalError(e)) {
        result.error = BUSY_JOURNAL_POLL_ERROR;
        result.noBackoff = true;
        log.warn({ err: result.error }, 'poll failed');
      } else if (e instanceof HikAuthError) {
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
      // A connection in a bad state is not reused.
      this.client?.c.http.destroy();
      this.client = undefined;
      if (fault && !result.noBackoff) {
        const detail = e instanceof Error ? e.message : String(e);
        recordFailedPoll(ledger, log, cfg.name, { reached, startedAt, fault, detail });
      }
    }
    return result;
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
    const c = this.client;
    this.client = undefined;
    await c?.c.http.close();
  }

  destroy(): void {
    this.client?.c.http.destroy();
    this.client = undefined;
  }
}

/** A refusal line `what: fix` taken apart at its first ": " (its cause leads, its fix follows). */
function splitAt(line: string): [string, string] {
  const i = line.indexOf(': ');
  return i < 0 ? [line, 'put the right password in the password file'] : [line.slice(0, i), line.slice(i + 2)];
}
