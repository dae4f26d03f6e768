import type { DahuaTerminalConfig } from '../../config/terminals.js';
import { deviceIdentity, wallClockAt, wallClockDiffSeconds } from '../../punch.js';
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
import { configKeyOf, type TerminalFault } from '../poll-outcome.js';
import { logPolled } from '../punch-log.js';
import type { SourceDeps } from '../types.js';
import { nextTry, readRefusal, recordRefusal, refusalWords } from './auth-gate.js';
import { DahuaClient, type TimeCondition } from './client.js';
import { DahuaAuthError, DahuaStaleNonceError } from './errors.js';
import { describeDahuaFault } from './fault.js';
import { writeDahuaNote, type DahuaNoteTopic } from './notes.js';
import { readDahuaPassword, type DahuaPassword } from './password.js';
import { cursorKey, parseCursor, readRecords, type RecordCursor, type ReadResult } from './read-records.js';

export interface DahuaPollResult {
  terminal: string;
  ok: boolean;
  serial: string;
  added: number;
  duplicates: number;
  quarantined: number;
  rows: number;
  pages: number;
  skewSeconds: number | null;
  error?: string;
  authRefused: boolean;
  /** A refusal's wait is not over: nothing was sent. */
  waiting: boolean;
  reached: boolean;
  noBackoff?: boolean;
  stopped?: string;
  implausible: number;
}

/** Builds the client of a terminal (tests and the bench count its requests). */
export type DahuaClientFactory = (cfg: DahuaTerminalConfig, password: string) => DahuaClient;

export const defaultDahuaClientFactory: DahuaClientFactory = (cfg, password) =>
  new DahuaClient({
    host: cfg.host,
    port: cfg.port ?? (cfg.tls ? 443 : 80),
    tls: cfg.tls,
    tlsFingerprint: cfg.tlsFingerprint,
    username: cfg.username,
    password,
    timeoutMs: cfg.timeoutMs,
  });

/** `YYYY-MM-DD HH:mm:ss` as seconds, the fields read as UTC (how `local` records count). */
export function wallSeconds(wall: string): number {
  const [d, t] = wall.split(' ') as [string, string];
  const [y, mo, da] = d.split('-').map(Number) as [number, number, number];
  const [h, mi, s] = t.split(':').map(Number) as [number, number, number];
  return Date.UTC(y, mo - 1, da, h, mi, s) / 1000;
}

/**
 * Polls one Dahua terminal: identity (serial, swap detection), clock (skew), then the records
 * since the journal's cursor. Keeps its connection (and the Digest nonce) between polls. Never
 * throws: trouble is in the result and the terminals ledger.
 */
export class DahuaPoller {
  private readonly client = new ClientForPassword<DahuaClient>();
  /** Learned per process: how the firmware takes the search's time window. */
  private form: TimeCondition = 'plain';
  private readonly accepted = new AcceptedPassword(() => readDahuaPassword(this.cfg, this.env));

  constructor(
    private readonly cfg: DahuaTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly factory: DahuaClientFactory = defaultDahuaClientFactory,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly tuning: { commitRows?: number; maxPages?: number; deadlineMs?: number } = {},
  ) {}

  clientFor(pw: DahuaPassword): DahuaClient {
    return (
      this.client.current(pw.password, (c) => c.destroy()) ??
      this.client.keep(pw.password, this.factory(this.cfg, pw.password))
    );
  }

  /** The password, unless a refusal's wait is not over (then the words of the status). */
  passwordIfAllowed(): { pw: DahuaPassword } | { waitUntil: number; words: TerminalFault } {
    const pw = readDahuaPassword(this.cfg, this.env);
    const now = this.deps.clock.now();
    const r = readRefusal(this.deps.state, this.cfg.name);
    const next = nextTry(r, pw.changedAt, now);
    if (r && next !== undefined) return { waitUntil: next, words: refusalWords(this.cfg.name, r, next, pw.from) };
    return { pw };
  }

  /** The terminal accepted the password it now has in the config (the event stream waits for it). */
  passwordAccepted(): boolean {
    return this.accepted.holds();
  }

  /** Records a refused password (the wait starts) and returns the status words. */
  refused(e: DahuaAuthError): TerminalFault {
    const { cfg, deps } = this;
    this.accepted.refused();
    const now = deps.clock.now();
    const r = recordRefusal(deps.state, cfg.name, e.locked, now, e instanceof DahuaStaleNonceError);
    const pw = passwordIfReadable(() => readDahuaPassword(cfg, this.env));
    const words = refusalWords(cfg.name, r, nextTry(r, pw?.changedAt ?? null, now), pw?.from ?? 'the password file');
    deps.logger.child({ terminal: cfg.name }).error({ refusals: r.refusals }, `${words.cause}: ${words.fix}`);
    return words;
  }

  /**
   * Runs `fn` with a client under the password rule (not while a refusal's wait lasts; a refusal
   * met here is recorded for the daemon too). For one-shot work: `sync-users`, `check`.
   */
  async withClient<T>(fn: (client: DahuaClient) => Promise<T>): Promise<T> {
    const allowed = this.passwordIfAllowed();
    if ('waitUntil' in allowed) throw new DahuaAuthError(`${allowed.words.cause}: ${allowed.words.fix}`);
    try {
      const result = await fn(this.clientFor(allowed.pw));
      this.accepted.accepted(allowed.pw.password, this.deps, this.cfg.name);
      return result;
    } catch (e) {
      if (e instanceof DahuaAuthError) {
        const w = this.refused(e);
        // The kind is kept: `sync-users` says a stale-nonce loop as such (describeDahuaFault).
        throw e instanceof DahuaStaleNonceError
          ? new DahuaStaleNonceError(`${w.cause}: ${w.fix}`)
          : new DahuaAuthError(`${w.cause}: ${w.fix}`, e.locked);
      }
      throw e;
    } finally {
      this.destroy();
    }
  }

  async poll(signal?: AbortSignal): Promise<DahuaPollResult> {
    const { cfg, deps } = this;
    const { ledger, clock } = deps;
    const log = deps.logger.child({ terminal: cfg.name });
    const result: DahuaPollResult = {
      terminal: cfg.name,
      ok: false,
      serial: '',
      added: 0,
      duplicates: 0,
      quarantined: 0,
      rows: 0,
      pages: 0,
      skewSeconds: null,
      authRefused: false,
      waiting: false,
      reached: false,
      implausible: 0,
    };
    const startedAt = clock.now();
    let reached = false;
    try {
      const allowed = this.passwordIfAllowed();
      if ('waitUntil' in allowed) {
        Object.assign(result, { waiting: true, authRefused: true, noBackoff: true, error: allowed.words.cause });
        ledger.update(cfg.name, { online: false, lastError: allowed.words.cause, lastErrorFix: allowed.words.fix });
        return result;
      }
      const client = this.clientFor(allowed.pw);
      const info = await client.identity(signal);
      reached = true;
      result.reached = true;
      if (this.accepted.accepted(allowed.pw.password, deps, cfg.name)) log.info(passwordWorksAgain(cfg.name));
      const serial = deviceIdentity(info.serial);
      result.serial = serial;
      const known = checkSerial(deps, log, cfg.name, serial);
      const deviceWall = await client.currentTime(signal);
      result.skewSeconds = wallClockDiffSeconds(deviceWall, wallClockAt(clock.now(), cfg.timezone));
      const key = cursorKey(serial);
      const commit = cursorCommit<RecordCursor>(
        deps,
        { terminal: cfg.name, timezone: cfg.timezone, key, skewSeconds: result.skewSeconds },
        (cursor) => JSON.stringify(cursor),
      );
      const read = await readRecords({
        client,
        terminal: cfg.name,
        device: serial,
        recordClock: cfg.recordClock,
        timezone: cfg.timezone,
        cursor: parseCursor(deps.state.get(cfg.name, key)),
        form: this.form,
        pageSize: cfg.pageSize,
        deviceNowSeconds:
          cfg.recordClock === 'local' ? wallSeconds(deviceWall) : Math.floor(clock.now() / 1000 + result.skewSeconds),
        boxNowMs: clock.now(),
        commit,
        log,
        signal,
        ...this.tuning,
      });
      this.form = read.form;
      Object.assign(result, {
        added: read.added,
        duplicates: read.duplicates,
        quarantined: read.quarantined,
        rows: read.rows,
        pages: read.pages,
        implausible: read.implausible,
      });
      this.noteRead(read);
      settleRead(result, read, known, log, cfg.name, clock.now());
      ledger.update(cfg.name, {
        ...reachedFields(serial, known, startedAt, read.stopped, clock.now()),
        lastErrorFix: null,
        skewSeconds: result.skewSeconds,
        firmware: [info.deviceType, info.software].filter(Boolean).join(' ') || null,
      });
      logPolled(log, cfg.name, result);
    } catch (e) {
      this.destroy();
      if (notTheTerminals(e, signal, result, log)) return result;
      let fault: TerminalFault;
      if (e instanceof DahuaAuthError) {
        result.authRefused = true;
        result.noBackoff = true;
        fault = this.refused(e);
        result.error = fault.cause;
        reached = false;
      } else {
        fault = describeDahuaFault(e, cfg, configKeyOf(deps, cfg.name));
        result.error = fault.cause;
        const code = (e as { code?: string }).code;
        if (code === 'ANSWER_TOO_LARGE' || code === 'DEADLINE') this.note('poll', endedEarly((e as Error).message));
      }
      recordPollFault(ledger, log, cfg.name, { reached, startedAt, fault }, e);
    }
    return result;
  }

  private note(topic: DahuaNoteTopic, words: { cause: string; fix: string } | null): void {
    const { deps, cfg } = this;
    writeDahuaNote(deps.state, cfg.name, topic, words, deps.clock.now(), deps.logger.child({ terminal: cfg.name }));
  }

  private noteRead(read: ReadResult): void {
    if (read.stopped && read.deviceFault)
      this.note('poll', {
        cause: `a poll ended early: ${read.stopped}; what was read before is kept`,
        fix: 'restart the terminal, and update its firmware if it goes on',
      });
    if (read.implausible > 0)
      this.note('records', {
        cause: `${read.implausible} records dated implausibly (${read.implausibleExample}): journalled (quarantined when the time is impossible), but the read position stays below them`,
        fix: "check the terminal's clock (and its time zone) and set it right",
      });
    if (read.cursorReset)
      this.note('cursor', {
        cause: read.cursorReset,
        fix: 'nothing to do unless it happens again (then check the terminal)',
      });
  }

  destroy(): void {
    this.client.take()?.destroy();
  }
}
