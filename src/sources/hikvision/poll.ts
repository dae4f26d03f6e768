import { readFileSync } from 'node:fs';
import type { HikvisionTerminalConfig } from '../../config/terminals.js';
import { deviceIdentity, wallClockAt, wallClockDiffSeconds, type Punch } from '../../punch.js';
import { isBusyJournalError } from '../../journal/errors.js';
import { elapsedMs } from '../../util/clock.js';
import { logPolled } from '../punch-log.js';
import { BUSY_JOURNAL_POLL_ERROR, recordFailedPoll } from '../poll-outcome.js';
import { agreesBeforeBoxStep, BOX_STEPPED_NOT_SET, type SourceDeps } from '../types.js';
import { clearRefusal, nextAuthTry, readRefusal, recordRefusal, refusalText } from './auth-gate.js';
import { HikvisionClient } from './client.js';
import { HikAuthError, HikSetupError } from './errors.js';
import { cursorKey, formatCursor, parseCursor, readEvents, type EventCursor, type FilterMode } from './event-reader.js';
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
export class HikvisionPoller {
  private client: { c: HikvisionClient; password: string } | undefined;
  /** Learned per process: firmware without serial filters is read by time window. */
  private mode: FilterMode = 'serial';
  /** The password the terminal last accepted (in memory only). */
  private accepted: string | undefined;

  constructor(
    private readonly cfg: HikvisionTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly factory: HikClientFactory = defaultHikClientFactory,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** Tests commit more often than every 10,000 events. */
    private readonly tuning: { commitRows?: number } = {},
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
    const next = nextAuthTry(refusal, pw.changedAt);
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
    const msg = refusalText(cfg.name, r, nextAuthTry(r, pw?.changedAt ?? null), now, pw && passwordPlace(pw));
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
      clearRefusal(this.deps.state, this.cfg.name);
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
    };
    const startedAt = clock.now();
    let reached = false;
    try {
      const allowed = this.passwordIfAllowed();
      if ('waitUntil' in allowed) {
        Object.assign(result, { waiting: true, authRefused: true, error: allowed.message });
        ledger.update(cfg.name, { online: false, lastError: allowed.message });
        return result;
      }
      const client = await this.clientFor(allowed.pw);
      const info = await client.deviceInfo(signal);
      reached = true;
      this.accepted = allowed.pw.password;
      clearRefusal(deps.state, cfg.name);
      const serial = deviceIdentity(info.serialNumber);
      result.serial = serial;
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
        overlapMinutes: cfg.overlapMinutes,
        deviceNow,
        commit,
        log,
        signal,
        now: () => elapsedMs(clock),
        commitRows: this.tuning.commitRows,
      });
      this.mode = read.mode;
      Object.assign(result, {
        mode: read.mode,
        added: read.added,
        duplicates: read.duplicates,
        quarantined: read.quarantined,
        rows: read.rows,
        passes: read.passes,
        pages: read.pages,
      });
      result.ok = true;
      ledger.update(cfg.name, {
        serial: serial || known?.serial || '',
        online: true,
        lastPollAt: startedAt,
        lastSuccessAt: clock.now(),
        offlineSince: null,
        lastError: null,
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
      if (isBusyJournalError(e)) {
        result.error = BUSY_JOURNAL_POLL_ERROR;
        result.noBackoff = true;
        log.warn({ err: result.error }, 'poll failed');
      } else if (e instanceof HikAuthError) {
        result.authRefused = true;
        result.error = this.refused(e);
        reached = false;
      } else {
        result.error = e instanceof Error ? e.message : String(e);
        if (e instanceof HikSetupError) {
          // Only the admin can fix it: the status says so at once (a last error led by the terminal's name).
          result.error = `${cfg.name} cannot be polled: ${result.error}`;
          log.error(result.error);
        } else log.warn({ err: result.error }, 'poll failed');
      }
      // A connection in a bad state is not reused.
      this.client?.c.http.destroy();
      this.client = undefined;
      if (!result.noBackoff) recordFailedPoll(ledger, log, cfg.name, { reached, startedAt, error: result.error });
    }
    return result;
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
