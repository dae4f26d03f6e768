import { readFileSync } from 'node:fs';
import { addressShown } from '../../config/web-address.js';
import type { BiotimeTerminalConfig } from '../../config/terminals.js';
import { isBusyJournalError } from '../../journal/errors.js';
import { wallClockAt, type Punch } from '../../punch.js';
import { journalReadAgain } from '../journal-synced-apart.js';
import { logPolled } from '../punch-log.js';
import {
  BUSY_JOURNAL_POLL_ERROR,
  configKeyOf,
  noteWorking,
  recordFailedPoll,
  type TerminalFault,
} from '../poll-outcome.js';
import type { SourceDeps } from '../types.js';
import { openClient, type BioTimeClient } from './client.js';
import { mergeDevices } from './devices.js';
import { namesOf } from './rows.js';
import { BioApiError, BioAuthError, BioConnectionError, BioRefusedError, BioSetupError } from './errors.js';
import { MAX_POLL_PAGES, monotonicNow, POLL_DEADLINE_MS } from './limits.js';
import { writeNote, type BioNoteTopic, type NoteWords } from './notes.js';
import { readBiotimePassword } from './password.js';
import {
  CURSOR_KEY,
  formatCursor,
  parseCursor,
  readTransactions,
  type BioCursor,
  type ReadMode,
  type ReadResult,
} from './reader.js';

export interface BioPollResult {
  terminal: string;
  ok: boolean;
  noBackoff?: boolean;
  added: number;
  duplicates: number;
  quarantined: number;
  refused: number;
  rows: number;
  pages: number;
  mode: ReadMode;
  error?: string;
  stopped?: string;
  /** The account was refused (now, or earlier and its password file has not changed since). */
  authRefused: boolean;
}

/** Builds the client of a server (tests and the bench count its requests). */
export type BioClientFactory = (cfg: BiotimeTerminalConfig, password: string) => Promise<BioTimeClient>;

export const defaultBioClientFactory: BioClientFactory = (cfg, password) =>
  openClient({
    baseUrl: cfg.baseUrl,
    username: cfg.username,
    password,
    auth: cfg.auth,
    timeoutMs: cfg.timeoutMs,
    ca: cfg.caFile ? readFileSync(cfg.caFile) : undefined,
  });

/** After a refused password, the server is asked again this long later (or as soon as the password file changes). */
export const AUTH_RETRY_MS = 15 * 60_000;

/** The words of the alerts (src/status/biotime.ts shows them with the server's name). */
export const WORDS = {
  api: (said: string): NoteWords => ({
    cause: `the server refuses its API${said ? ` ("${said}")` : ''}: its licence does not include the API, or the account may not use it; no punches are read`,
    fix: "have the server's licence extended to the API (ZKTeco or your reseller: the API is a licensed module), or give the account API access in BioTime (System > Account); punchgate tries again at every poll",
  }),
  password: (said: string, place: string): NoteWords => ({
    cause: `the server refuses the username and password${said ? ` ("${said}")` : ''}: was the account's password changed? No punches are read until it is right`,
    fix: `put the account's current password in ${place} (punchgate tries it at once), or set the username; punchgate check tests it`,
  }),
  table: (what: string, from: string | undefined): NoteWords => ({
    cause: `${what}; punchgate read it again ${from ? `from ${from}` : 'from its first transaction'} (punches already journalled are not doubled)`,
    fix: 'nothing to do if the BioTime database was restored or replaced on purpose; if transactions were deleted there, punches made while they were missing may need a check in the HRMS',
  }),
  lag: (minutes: number, device: string): NoteWords => ({
    cause: `the server is behind its terminals: ${device}'s punches reach it ${minutes >= 120 ? `${Math.round(minutes / 60)} h` : `${minutes} min`} after they are made (the terminal cannot reach the server, the server is too busy, or the terminal's clock is behind); they are delivered once they reach it`,
    fix: "check the terminal's network and its Cloud Server Setting (the server's address), its clock, and the BioTime server's load",
  }),
  poll: (stopped: string): NoteWords => ({
    cause: `a poll ended early (${stopped}); what was read is kept and the next poll goes on from there`,
    fix: 'if this lasts for hours, check the network to the server and its load',
  }),
  rows: (n: number, example: string): NoteWords => ({
    cause: `${n} ${n === 1 ? 'transaction' : 'transactions'} numbered implausibly (${example}): journalled, but the read position stays below, so later transactions keep coming`,
    fix: 'if it goes on, check the BioTime database (a transaction id far beyond the others)',
  }),
};

/**
 * Polls one BioTime server: the transactions newer than the journal's cursor, in pages, each
 * journalled with the cursor; then the devices seen and the notes for the status. Keeps its
 * client (and token) between polls. Never throws: trouble is in the result and the ledger.
 */
export class BiotimePoller {
  private client: { c: BioTimeClient; password: string } | undefined;
  /** Learnt per process: a server that ignores the id order is read by time window. */
  private mode: ReadMode = 'id';
  private refusal: { at: number; changedAt: number | null } | undefined;
  /** The ids of the id window journalled by this process (reader.ts: not journalled again at each poll). */
  private readonly seen = new Set<string>();

  constructor(
    private readonly cfg: BiotimeTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly factory: BioClientFactory = defaultBioClientFactory,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly tuning: { maxPages?: number; deadlineMs?: number } = {},
  ) {}

  private async clientFor(password: string): Promise<BioTimeClient> {
    if (this.client && this.client.password !== password) {
      this.client.c.http.destroy();
      this.client = undefined;
    }
    this.client ??= { c: await this.factory(this.cfg, password), password };
    return this.client.c;
  }

  private note(topic: BioNoteTopic, words: NoteWords | null): void {
    const { deps, cfg } = this;
    writeNote(deps.state, cfg.name, topic, words, deps.clock.now(), deps.logger.child({ terminal: cfg.name }));
  }

  async poll(signal?: AbortSignal): Promise<BioPollResult> {
    const { cfg, deps } = this;
    const { ledger, clock } = deps;
    const log = deps.logger.child({ terminal: cfg.name });
    const result: BioPollResult = {
      terminal: cfg.name,
      ok: false,
      added: 0,
      duplicates: 0,
      quarantined: 0,
      refused: 0,
      rows: 0,
      pages: 0,
      mode: this.mode,
      authRefused: false,
    };
    const startedAt = clock.now();
    let reached = false;
    let place = cfg.passwordFile ?? 'the password file';
    try {
      const pw = readBiotimePassword(cfg, this.env);
      place = pw.from;
      const r = this.refusal;
      if (r && r.changedAt === pw.changedAt && clock.now() - r.at < AUTH_RETRY_MS) {
        // Not asked again with a password it refused (an account may lock): until the file changes.
        result.authRefused = true;
        result.noBackoff = true;
        result.error = 'the server refused the password; waiting for a new one';
        return result;
      }
      const client = await this.clientFor(pw.password);
      const commit = (punches: Punch[], cursor: BioCursor) => {
        // With its cursor, its disk sync beside the event loop: the server keeps every transaction.
        const res = journalReadAgain(deps.sink, punches, {
          timezone: cfg.timezone,
          state: { terminal: cfg.name, key: CURSOR_KEY, value: formatCursor(cursor) },
          countByDevice: true,
        });
        if (res.added > 0) deps.onPunches?.(res.added);
        return res;
      };
      const serials = cfg.terminals && new Set(cfg.terminals);
      const areas = cfg.areas && new Set(cfg.areas);
      const read = await readTransactions({
        client,
        source: cfg.name,
        pageSize: cfg.pageSize,
        mode: this.mode,
        cursor: parseCursor(deps.state.get(cfg.name, CURSOR_KEY)),
        overlapMinutes: cfg.overlapMinutes,
        seen: this.seen,
        nowWall: wallClockAt(clock.now(), cfg.timezone),
        accept: (f) => (!serials || serials.has(f.serial)) && (!areas || areas.has(namesOf(f.row).area)),
        commit,
        log,
        signal,
        limits: {
          maxPages: this.tuning.maxPages ?? MAX_POLL_PAGES,
          deadline: monotonicNow() + (this.tuning.deadlineMs ?? POLL_DEADLINE_MS),
          monotonic: monotonicNow,
        },
      });
      reached = true;
      this.refusal = undefined;
      this.mode = read.mode;
      Object.assign(result, {
        mode: read.mode,
        added: read.added,
        duplicates: read.duplicates,
        quarantined: read.quarantined,
        refused: read.refused,
        rows: read.rows,
        pages: read.pages,
      });
      this.afterRead(read);
      result.ok = !read.stopped;
      if (read.stopped) {
        result.stopped = read.stopped;
        result.noBackoff = true;
        log.warn({ err: read.stopped, rows: read.rows, pages: read.pages }, 'poll stopped at a bound');
      } else noteWorking(ledger.get(cfg.name), log, cfg.name, clock.now());
      ledger.update(cfg.name, {
        online: true,
        lastPollAt: startedAt,
        ...(read.stopped ? {} : { lastSuccessAt: clock.now() }),
        offlineSince: null,
        lastError: null,
        lastErrorFix: null,
      });
      logPolled(log, cfg.name, result);
    } catch (e) {
      if (signal?.aborted) {
        this.client?.c.http.destroy();
        this.client = undefined;
        result.error = 'stopped';
        return result;
      }
      let fault: TerminalFault;
      if (isBusyJournalError(e)) {
        result.error = BUSY_JOURNAL_POLL_ERROR;
        result.noBackoff = true;
        log.warn({ err: result.error }, 'poll failed');
        return result;
      }
      if (e instanceof BioAuthError) {
        // The server answered: it is reached, the account is the trouble (an alert of its own).
        reached = true;
        result.authRefused = true;
        result.noBackoff = true;
        let changedAt: number | null = null;
        try {
          changedAt = readBiotimePassword(cfg, this.env).changedAt;
        } catch {
          /* gone meanwhile */
        }
        this.refusal = { at: clock.now(), changedAt };
        const said = /\("([^"]*)"\)/.exec(e.message)?.[1] ?? '';
        const w = WORDS.password(said, place);
        this.note('password', w);
        fault = w;
      } else if (e instanceof BioRefusedError) {
        reached = true;
        result.noBackoff = true;
        const w = WORDS.api(e.said);
        this.note('api', w);
        fault = w;
      } else if (e instanceof BioSetupError) {
        fault = {
          cause: `${cfg.name} cannot be polled: ${e.message}`,
          fix: 'correct it in the config, then sudo systemctl reload punchgate',
        };
      } else if (e instanceof BioApiError) {
        reached = true;
        fault = {
          cause: e.message,
          fix: `check baseUrl of ${configKeyOf(deps, cfg.name)} and that the BioTime service is healthy`,
        };
      } else if (e instanceof BioConnectionError) {
        if (e.code === 'ANSWER_TOO_LARGE' || e.code === 'DEADLINE') {
          reached = true;
          this.note('poll', WORDS.poll(e.message));
        }
        fault = {
          cause: e.message,
          fix: `check that the BioTime server is up and baseUrl of ${configKeyOf(deps, cfg.name)} (${addressShown(cfg.baseUrl)}); punchgate check tests it`,
        };
      } else {
        fault = {
          cause: e instanceof Error ? e.message : String(e),
          fix: 'punchgate check tests the server and says more',
        };
      }
      result.error = fault.cause;
      if (!(e instanceof BioAuthError) && !(e instanceof BioRefusedError)) {
        this.client?.c.http.destroy();
        this.client = undefined;
      }
      recordFailedPoll(ledger, log, cfg.name, {
        reached,
        startedAt,
        fault,
        detail: e instanceof Error ? e.message : String(e),
      });
    }
    return result;
  }

  /** The devices seen, and the notes: cleared when their trouble is over. */
  private afterRead(read: ReadResult): void {
    const { cfg, deps } = this;
    try {
      mergeDevices(deps.state, cfg.name, read.devices, deps.clock.now());
    } catch (e) {
      deps.logger.warn(
        { terminal: cfg.name, err: String(e) },
        'could not keep the list of terminals behind the server',
      );
    }
    this.note('api', null);
    this.note('password', null);
    if (read.renumbered) this.note('table', WORDS.table(read.renumbered, read.cursor.from));
    if (read.lag !== undefined) {
      const minutes = Math.floor(read.lag.seconds / 60);
      const device = read.lag.alias ? `${read.lag.alias} (${read.lag.serial})` : read.lag.serial;
      this.note('lag', minutes >= cfg.lagAlertMinutes ? WORDS.lag(minutes, device) : null);
    }
    this.note('poll', read.stopped ? WORDS.poll(read.stopped) : null);
    if (read.implausible > 0) this.note('rows', WORDS.rows(read.implausible, read.implausibleExample ?? ''));
    if (read.notRows > 0)
      deps.logger.warn(
        { terminal: cfg.name, notTransactions: read.notRows },
        `terminal ${cfg.name}: the server's transaction list held ${read.notRows} ${read.notRows === 1 ? 'item' : 'items'} that ${read.notRows === 1 ? 'is' : 'are'} no transaction (null, text or a number), left out; the transactions around them are kept: if it goes on, check the BioTime server's version and its API`,
      );
  }

  destroy(): void {
    this.client?.c.http.destroy();
    this.client = undefined;
  }
}
