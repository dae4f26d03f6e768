import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setImmediate as nextCheckPhase } from 'node:timers/promises';
import type { AdmsConfig } from '../../config/adms.js';
import type {
  IngestResult,
  KeptUpload,
  PushJournal,
  PushMalformed,
  PushRegistration,
  SourceStateStore,
} from '../../journal/types.js';
import { logPushed } from '../punch-log.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { MalformedLine } from './attlog.js';
import type { ContactBook } from './contacts.js';
import type { PushTerminal, TerminalDirectory } from './directory.js';
import type { GroupCommit } from './group-commit.js';
import { answer, readBody, type BodyBudget, type BodyOutcome } from './http-body.js';
import { LogBudget } from './log-budget.js';
import type { RepeatedUploads } from './repeats.js';
import { tableLabel } from './kept.js';
import {
  cutBodyWords,
  hasPushNote,
  noLengthWords,
  REFUSAL_TOPICS,
  tooLargeWords,
  unreadableCodingWords,
  writePushNote,
  type RefusalTopic,
} from './notes.js';
import type { NoteWords } from '../device-notes.js';

/**
 * What every protocol handler of the push receiver works with, and the steps they share:
 * reading a body within the budgets, asking the terminal to retry, reporting malformed lines.
 */
export interface ReceiverContext {
  journal: PushJournal;
  /** ATTLOG and rtlog uploads go through here: those that arrive together share one transaction. */
  commits: GroupCommit;
  directory: TerminalDirectory;
  contacts: ContactBook;
  registrations: RegistrationBook;
  budget: BodyBudget;
  logger: Logger;
  clock: Clock;
  settings: () => AdmsConfig;
  onPunches?: (added: number) => void;
  /** Where notes for the status are kept (notes.ts); absent: refusals are logged only. */
  notes?: SourceStateStore;
  /**
   * Per kind of refusal, per terminal, the table of its upload refused so (null: none), as far as
   * known since start: the upload of that table that goes through ends the note.
   */
  refused?: Record<RefusalTopic, Map<string, string | null>>;
  /**
   * Connections whose next bytes are the rest of an upload refused before its body (no length
   * told): they are no request, and not said as one the receiver cannot read.
   */
  bodyFollows: WeakSet<Socket>;
  /** Terminals sending the same upload again and again (repeats.ts). */
  repeats: RepeatedUploads;
}

/** One request of a known terminal, from an allowed address. */
export interface PushRequest {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  terminal: PushTerminal;
  address: string;
}

/** At most this many malformed lines of one upload are logged one by one; then one summary line. */
const MALFORMED_LOGGED = 10;
/** Bodies read only to be counted (photos) may be this many times `maxBodyBytes`. */
const DISCARD_FACTOR = 8;
/** What a terminal gets when the journal cannot take its data now: it keeps the data and retries. */
const RETRY_LATER = 'ERROR: the gateway cannot store this now; keep it and retry';

export const validStamp = (s: string | null) => (s !== null && /^[A-Za-z0-9._:-]{1,40}$/.test(s) ? s : null);

/**
 * The upload's `Stamp=`, if it may be saved (only requests the trust gate admitted reach a
 * handler: trust-gate.ts).
 */
export const stampOf = (_ctx: ReceiverContext, p: PushRequest) => validStamp(p.query.get('Stamp'));
/** Records that the request's terminal was in contact (online, its address and facts). */
export function noteContact(
  ctx: ReceiverContext,
  t: PushTerminal,
  address: string,
  extra?: Parameters<ContactBook['seen']>[2],
): void {
  ctx.contacts.seen(t, address, extra);
}

/**
 * After an upload's punches are journalled: delivery is woken for what was added, the upload is
 * logged, and punches quarantined for an implausible time are said (`what`: punches or passes).
 */
export function reportJournalled(
  ctx: ReceiverContext,
  terminal: string,
  sent: number,
  r: IngestResult,
  what: 'punches' | 'passes',
): void {
  if (r.added > 0) ctx.onPunches?.(r.added);
  if (sent > 0) logPushed(ctx.logger.child({ terminal }), terminal, sent, r);
  if (r.quarantined > 0)
    ctx.logger.warn(
      { terminal, quarantined: r.quarantined },
      what === 'passes'
        ? 'passes with an implausible time quarantined (was the terminal clock set?)'
        : 'punches with an implausible time quarantined',
    );
}

export const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function retryLater(ctx: ReceiverContext, p: PushRequest): void {
  answer(p.req, p.res, 503, RETRY_LATER, { 'Retry-After': String(ctx.settings().errorDelay) });
}

/** Reads a body; answers the request itself and returns undefined when there is none to use. */
/** An upload this long (characters) is read, kept and journalled in steps with a pause between. */
const LARGE_UPLOAD_CHARS = 256 * 1024;

/**
 * Lets the event loop serve others (other terminals' OKs, scrapes) between the steps of a large
 * upload (issue 35): reading 2 MB of lines, keeping those it cannot read and journalling them held
 * it for 100 ms and more in one piece.
 */
export async function pauseIfLarge(text: string): Promise<void> {
  if (text.length >= LARGE_UPLOAD_CHARS) await nextCheckPhase();
}

export async function bodyOf(ctx: ReceiverContext, p: PushRequest, discard = false): Promise<Buffer | undefined> {
  const s = ctx.settings();
  const maxBytes = discard ? s.maxBodyBytes * DISCARD_FACTOR : s.maxBodyBytes;
  if (lengthUntold(p)) {
    const words = noteRefusal(ctx, p, 'no-length', noLengthWords);
    ctx.logger.warn(
      { terminal: p.terminal.cfg.name },
      `push terminal ${p.terminal.cfg.name}: ${words.cause}: ${words.fix}`,
    );
    // Closed after the answer: the body that follows is not read as the next request.
    ctx.bodyFollows.add(p.req.socket);
    answer(p.req, p.res, 411, 'ERROR: Content-Length required', { Connection: 'close' });
    return undefined;
  }
  const outcome: BodyOutcome = await readBody(p.req, { maxBytes, budget: ctx.budget, discard });
  switch (outcome.kind) {
    case 'body':
      for (const topic of REFUSAL_TOPICS) refusalOver(ctx, p, topic);
      // A UTF-8 byte order mark (firmware or a proxy that writes text files so) is not the first
      // line's text: with it, line 1 of an ATTLOG upload read as malformed.
      return loneCrToLf(hasBom(outcome.data) ? outcome.data.subarray(3) : outcome.data);
    case 'too-large': {
      ctx.logger.warn(
        { terminal: p.terminal.cfg.name, bytes: outcome.bytes, maxBodyBytes: maxBytes },
        'push terminal sent a body larger than adms.maxBodyBytes: refused (raise adms.maxBodyBytes if this terminal is genuine)',
      );
      noteRefusal(ctx, p, 'too-large', (table) => tooLargeWords(outcome.bytes, maxBytes, table));
      answer(p.req, p.res, 413, 'ERROR: body too large');
      return undefined;
    }
    case 'unreadable-coding': {
      const words = noteRefusal(ctx, p, 'unreadable-coding', (table) =>
        unreadableCodingWords(outcome.coding, outcome.why, table),
      );
      ctx.logger.warn(
        { terminal: p.terminal.cfg.name, coding: outcome.coding },
        `push terminal ${p.terminal.cfg.name}: ${words.cause}: ${words.fix}`,
      );
      // Never OK: a terminal told OK forgets the batch, and nothing of this one could be read.
      answer(
        p.req,
        p.res,
        415,
        `ERROR: body compressed as ${outcome.coding}, which the gateway cannot read; send it uncompressed`,
      );
      return undefined;
    }
    case 'busy':
      ctx.logger.warn({ terminal: p.terminal.cfg.name }, 'too many uploads in memory at once: asked to retry');
      retryLater(ctx, p);
      return undefined;
    case 'aborted':
      ctx.logger.debug({ terminal: p.terminal.cfg.name }, 'push terminal dropped the connection mid-body');
      return undefined;
  }
}

/**
 * An upload whose body ends short of a whole record (`why`): refused whole, never journalled nor
 * answered OK, and the connection closed after the answer, so the rest of a body its
 * Content-Length left out is not read as the next request. The terminal sends it again.
 */
export function refuseCutBody(ctx: ReceiverContext, p: PushRequest, why: string): void {
  const words = noteRefusal(ctx, p, 'cut-body', (table) => cutBodyWords(why, table));
  ctx.logger.warn(
    { terminal: p.terminal.cfg.name },
    `push terminal ${p.terminal.cfg.name}: ${words.cause}: ${words.fix}`,
  );
  ctx.bodyFollows.add(p.req.socket);
  answer(p.req, p.res, 400, 'ERROR: body cut short; send it again', { Connection: 'close' });
}

/**
 * An upload of a table (`table=`, `tablename=`) with neither a Content-Length nor chunks: for
 * HTTP its body is empty, and whatever the terminal sends after the headers is read as the next
 * request. It was answered `OK:0` at once (the terminal, told OK, forgot its punches) and its
 * lines refused as a request punchgate cannot read. Other posts keep an empty body, as before.
 */
function lengthUntold(p: PushRequest): boolean {
  const h = p.req.headers;
  if (h['content-length'] !== undefined || h['transfer-encoding'] !== undefined) return false;
  return p.query.get('table') !== null || p.query.get('tablename') !== null;
}

/** The table an upload names (`table=`, `tablename=`), as kept uploads show it; else its path's last part. */
const tableOf = (p: PushRequest) => {
  const named = p.query.get('table') ?? p.query.get('tablename');
  return named !== null ? tableLabel(named) : tableLabel((p.req.url ?? '').split('?')[0]!.split('/').pop());
};

/**
 * An upload refused whole (the terminal sends it again and again): a contact, and a note for the
 * status in `words` of its table. Returns the words.
 */
function noteRefusal(
  ctx: ReceiverContext,
  p: PushRequest,
  topic: RefusalTopic,
  wordsOf: (table: string) => NoteWords,
): NoteWords {
  // The terminal called: it is there, and its trouble is this refusal, not silence.
  noteContact(ctx, p.terminal, p.address);
  const table = tableOf(p);
  const words = wordsOf(table);
  ctx.refused?.[topic].set(p.terminal.cfg.name, table);
  if (ctx.notes) writePushNote(ctx.notes, p.terminal.cfg.name, topic, words, ctx.clock.now(), ctx.logger);
  return words;
}

/**
 * An upload of the table refused so went through: its note is over. After a start the receiver
 * does not know which table a note was about: the first upload that goes through ends it.
 */
function refusalOver(ctx: ReceiverContext, p: PushRequest, topic: RefusalTopic): void {
  const refused = ctx.refused?.[topic];
  if (!ctx.notes || !refused || p.req.method !== 'POST') return;
  const name = p.terminal.cfg.name;
  let table = refused.get(name);
  if (table === undefined) {
    // Only an upload of a table says uploads go through (a command's result does not).
    if (p.query.get('table') === null && p.query.get('tablename') === null) return;
    table = hasPushNote(ctx.notes, name, topic) ? tableOf(p) : null;
    refused.set(name, table);
  }
  if (table === null || table !== tableOf(p)) return;
  refused.set(name, null);
  writePushNote(ctx.notes, name, topic, null, ctx.clock.now(), ctx.logger);
}

const hasBom = (b: Buffer) => b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;

/**
 * Line ends as the parsers split them: a lone CR (a terminal or a proxy that writes old Mac line
 * ends) becomes LF; CRLF stays, each parser drops the CR. Without this a whole upload was one
 * malformed line, kept raw: nothing lost, but no punch journalled until reparse. Bodies here are
 * text (photos are discarded unread), so a CR byte is never part of a value.
 */
export function loneCrToLf(b: Buffer): Buffer {
  let i = b.indexOf(0x0d);
  if (i < 0) return b;
  const out = Buffer.from(b);
  for (; i >= 0; i = out.indexOf(0x0d, i + 1)) if (out[i + 1] !== 0x0a) out[i] = 0x0a;
  return out;
}

/** After a body arrived, the terminal may have been removed or changed (SIGHUP). */
export function stillAccepted(ctx: ReceiverContext, p: PushRequest): PushTerminal | undefined {
  const r = ctx.directory.resolve(p.terminal.cfg.serial, p.address, ctx.clock.now());
  return r.kind === 'ok' ? r.terminal : undefined;
}

/** Malformed lines logged one by one, per terminal: at most 50 in 10 minutes (then only a summary per upload). */
const malformedBudgets = new WeakMap<PushTerminal['cfg'], LogBudget>();

export function reportMalformed(
  ctx: ReceiverContext,
  t: PushTerminal,
  table: string,
  bad: readonly MalformedLine[],
): void {
  if (bad.length === 0) return;
  const budget = malformedBudgets.get(t.cfg) ?? new LogBudget(50, 10 * 60_000);
  malformedBudgets.set(t.cfg, budget);
  const now = ctx.clock.now();
  let logged = 0;
  for (const m of bad.slice(0, MALFORMED_LOGGED)) {
    if (budget.take(now) === undefined) break;
    logged++;
    ctx.logger.warn(
      { terminal: t.cfg.name, serial: t.cfg.serial, table, line: m.line, reason: m.reason, text: m.text },
      `malformed ${table} line kept raw in the journal`,
    );
  }
  if (bad.length > logged)
    ctx.logger.warn(
      {
        terminal: t.cfg.name,
        serial: t.cfg.serial,
        table,
        more: bad.length - logged,
        first: `line ${bad[0]!.line}: ${bad[0]!.reason}`,
      },
      `more malformed ${table} lines kept raw in the journal`,
    );
}

export const malformedSummary = (bad: readonly MalformedLine[]): PushMalformed => ({
  count: bad.length,
  first: bad[0] ? `line ${bad[0].line}: ${bad[0].reason}` : null,
});

/** Kept uploads logged, per terminal: at most 20 lines in 10 minutes. */
const keptBudgets = new WeakMap<PushTerminal['cfg'], LogBudget>();

/** One log line for what an upload answered OK left kept raw (the status and an alert say it too). */
export function reportKept(ctx: ReceiverContext, t: PushTerminal, kept: readonly (KeptUpload | undefined)[]): void {
  const budget = keptBudgets.get(t.cfg) ?? new LogBudget(20, 10 * 60_000);
  keptBudgets.set(t.cfg, budget);
  for (const k of kept) {
    if (!k || budget.take(ctx.clock.now()) === undefined) continue;
    ctx.logger.warn(
      { terminal: t.cfg.name, serial: t.cfg.serial, table: k.table, lines: k.lines, reason: k.reason },
      `terminal ${t.cfg.name} sent ${k.lines} ${k.table} line(s) punchgate could not turn into punches (${k.reason}): kept raw in the journal; run punchgate terminals reparse ${t.cfg.name} once punchgate reads them`,
    );
  }
}

/**
 * The registrations of push terminals (Security PUSH), read from the journal once per terminal
 * and kept in memory: a registered device's every request checks its token against it.
 */
export class RegistrationBook {
  private readonly cache = new Map<string, PushRegistration | null>();
  /** Trust and sightings not yet written: written with the contacts, every few seconds (flush). */
  private readonly pending = new Map<string, PushTerminal>();

  constructor(
    private readonly journal: PushJournal,
    private readonly clock: Clock,
  ) {}

  private key(t: PushTerminal): string {
    return `${t.cfg.name}\u0000${t.cfg.serial}`;
  }

  /** Throws when the journal cannot be read now. */
  get(t: PushTerminal): PushRegistration | undefined {
    const key = this.key(t);
    if (!this.cache.has(key)) this.cache.set(key, this.journal.registration(t.cfg.name, t.cfg.serial) ?? null);
    return this.cache.get(key) ?? undefined;
  }

  /**
   * Changes the registration in memory; `flush` writes it within seconds, so that a request never
   * waits for a disk sync for it (200 terminals' first handshakes would otherwise be 200 syncs in
   * their request path). For what may be lost in a crash and learnt again: trust, sightings, the
   * protocol a device declared. A registration the device is answered with goes through `save`.
   */
  remember(t: PushTerminal, fields: Partial<Omit<PushRegistration, 'terminal' | 'serial' | 'updatedAt'>>): void {
    const key = this.key(t);
    const now = this.clock.now();
    const prev: PushRegistration = this.get(t) ?? {
      terminal: t.cfg.name,
      serial: t.cfg.serial,
      protocol: 'attendance',
      registryCode: null,
      sessionId: null,
      facts: {},
      registeredAt: null,
      trustedAddress: null,
      trustedAt: null,
      otherAddress: null,
      otherCount: 0,
      otherLastAt: null,
      updatedAt: now,
    };
    this.cache.set(key, { ...prev, ...fields, updatedAt: now });
    this.pending.set(key, t);
  }

  /** Writes what `remember` kept, in one transaction (what cannot be written now waits for the next call). */
  flush(): void {
    const regs = [...this.pending.keys()].flatMap((key) => this.cache.get(key) ?? []);
    try {
      this.journal.saveRegistrations(regs);
      this.pending.clear();
    } catch {
      // The journal is busy or refuses: kept in memory, written at the next flush.
    }
  }

  /** Saves (durably) and caches. Throws when the journal cannot be written now. */
  save(
    t: PushTerminal,
    fields: Partial<Omit<PushRegistration, 'terminal' | 'serial' | 'updatedAt'>>,
  ): PushRegistration {
    const prev = this.get(t);
    const key = this.key(t);
    // What `remember` kept and `flush` has not written yet goes with it.
    const unwritten = this.pending.has(key) && prev ? prev : {};
    const saved = this.journal.saveRegistration({
      ...unwritten,
      terminal: t.cfg.name,
      serial: t.cfg.serial,
      protocol: fields.protocol ?? prev?.protocol ?? 'attendance',
      updatedAt: this.clock.now(),
      ...fields,
    });
    this.pending.delete(key);
    this.cache.set(key, saved);
    return saved;
  }
}
