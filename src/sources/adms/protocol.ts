import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdmsConfig } from '../../config/adms.js';
import type { PushJournal, PushMalformed, TerminalCommand } from '../../journal/types.js';
import type { Punch } from '../../punch.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { parseAttlog, type MalformedLine } from './attlog.js';
import { isLastInAnswer, mayResend, userChangeOf } from './commands.js';
import type { ContactBook } from './contacts.js';
import { parseDeviceCmd } from './devicecmd.js';
import { parseInfoPairs, parseInfoParam } from './device-info.js';
import type { PushTerminal, TerminalDirectory } from './directory.js';
import type { GroupCommit } from './group-commit.js';
import { LogBudget } from './log-budget.js';
import { answer, readBody, type BodyBudget, type BodyOutcome } from './http-body.js';
import { parseOperlog } from './operlog.js';
import { logPushed } from '../punch-log.js';
import { optionBlock, pushBlock, timeZoneOption } from './options.js';

/** What every protocol handler works with. */
export interface ReceiverContext {
  journal: PushJournal;
  /** ATTLOG uploads go through here: those that arrive together share one transaction. */
  commits: GroupCommit;
  directory: TerminalDirectory;
  contacts: ContactBook;
  budget: BodyBudget;
  logger: Logger;
  clock: Clock;
  settings: () => AdmsConfig;
  onPunches?: (added: number) => void;
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
/** Commands in one getrequest answer at most (ZKTeco's own server: about 200, 40 KB). */
const COMMANDS_PER_ANSWER = { max: 50, maxBytes: 40_960 };
/** A harmless command handed out without a result is sent again after this long. */
const RESEND_AFTER_MS = 10 * 60_000;
/** Bodies read only to be thrown away (photos) may be this many times `maxBodyBytes`. */
const DISCARD_FACTOR = 8;
/** What a terminal gets when the journal cannot take its data now: it keeps the data and retries. */
const RETRY_LATER = 'ERROR: the gateway cannot store this now; keep it and retry';

const validStamp = (s: string | null) => (s !== null && /^[A-Za-z0-9._:-]{1,40}$/.test(s) ? s : null);
const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

function retryLater(ctx: ReceiverContext, p: PushRequest): void {
  answer(p.req, p.res, 503, RETRY_LATER, { 'Retry-After': String(ctx.settings().errorDelay) });
}

/** Reads a body; answers the request itself and returns undefined when there is none to use. */
async function bodyOf(ctx: ReceiverContext, p: PushRequest, discard = false): Promise<Buffer | undefined> {
  const s = ctx.settings();
  const maxBytes = discard ? s.maxBodyBytes * DISCARD_FACTOR : s.maxBodyBytes;
  const outcome: BodyOutcome = await readBody(p.req, { maxBytes, budget: ctx.budget, discard });
  switch (outcome.kind) {
    case 'body':
      return outcome.data;
    case 'too-large':
      ctx.logger.warn(
        { terminal: p.terminal.cfg.name, bytes: outcome.bytes, maxBodyBytes: maxBytes },
        'push terminal sent a body larger than adms.maxBodyBytes: refused (raise adms.maxBodyBytes if this terminal is genuine)',
      );
      answer(p.req, p.res, 413, 'ERROR: body too large');
      return undefined;
    case 'busy':
      ctx.logger.warn({ terminal: p.terminal.cfg.name }, 'too many uploads in memory at once: asked to retry');
      retryLater(ctx, p);
      return undefined;
    case 'aborted':
      ctx.logger.debug({ terminal: p.terminal.cfg.name }, 'push terminal dropped the connection mid-body');
      return undefined;
  }
}

/** After a body arrived, the terminal may have been removed or changed (SIGHUP). */
function stillAccepted(ctx: ReceiverContext, p: PushRequest): PushTerminal | undefined {
  const r = ctx.directory.resolve(p.terminal.cfg.serial, p.address, ctx.clock.now());
  return r.kind === 'ok' ? r.terminal : undefined;
}

/** Malformed lines logged one by one, per terminal: at most 50 in 10 minutes (then only a summary per upload). */
const malformedBudgets = new WeakMap<PushTerminal['cfg'], LogBudget>();

function reportMalformed(ctx: ReceiverContext, t: PushTerminal, table: string, bad: readonly MalformedLine[]): void {
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
      `malformed ${table} line skipped`,
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
      `more malformed ${table} lines skipped`,
    );
}

const malformedSummary = (bad: readonly MalformedLine[]): PushMalformed => ({
  count: bad.length,
  first: bad[0] ? `line ${bad[0].line}: ${bad[0].reason}` : null,
});

/** `GET /iclock/cdata?options=all`: the option block, with the stamps of the last durable uploads. */
export function handleOptions(ctx: ReceiverContext, p: PushRequest): void {
  const { cfg } = p.terminal;
  if (p.query.get('options') === null) {
    ctx.contacts.seen(p.terminal, p.address);
    return answer(p.req, p.res, 200, 'OK');
  }
  let stamps: Record<string, string>;
  try {
    stamps = ctx.journal.stamps(cfg.name, cfg.serial);
  } catch (e) {
    // Never "0" by mistake: that would make the terminal upload its whole log again.
    ctx.logger.warn({ terminal: cfg.name, err: errText(e) }, 'cannot read the stamps now: terminal asked to retry');
    return retryLater(ctx, p);
  }
  const pushVersion = p.query.get('pushver') ?? undefined;
  ctx.contacts.seen(p.terminal, p.address, { pushVersion });
  const body = optionBlock({
    serial: cfg.serial,
    stamps,
    settings: ctx.settings(),
    timeZone: timeZoneOption(ctx.clock.now(), cfg.timezone),
    pushVersion,
  });
  answer(p.req, p.res, 200, body);
}

/** `POST /iclock/cdata?table=...`: punches, user records, device options, or data we do not keep. */
export async function handleUpload(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  const table = (p.query.get('table') ?? '').toUpperCase();
  if (table === 'ATTLOG') return handleAttlog(ctx, p);
  if (table === 'OPERLOG' || table === 'USERINFO') return handleOperlog(ctx, p, table);
  if (table === 'OPTIONS') {
    const body = await bodyOf(ctx, p);
    if (body === undefined) return;
    ctx.contacts.seen(p.terminal, p.address, { info: parseInfoPairs(body.toString('utf8')) });
    return answer(p.req, p.res, 200, 'OK');
  }
  // ATTPHOTO, BIODATA, USERPIC, ERRORLOG...: photos and templates of people are not ours to keep.
  const body = await bodyOf(ctx, p, true);
  if (body === undefined) return;
  const stamp = validStamp(p.query.get('Stamp'));
  const { cfg } = p.terminal;
  if (stamp !== null && table !== '') {
    // Its stamp is kept all the same, so that the terminal does not send it again at each start.
    try {
      ctx.journal.commitUsers({ terminal: cfg.name, serial: cfg.serial, table, stamp, at: ctx.clock.now() }, [], {
        count: 0,
        first: null,
      });
    } catch (e) {
      ctx.logger.debug({ terminal: cfg.name, table, err: errText(e) }, 'stamp of a discarded upload not saved');
    }
  }
  ctx.contacts.seen(p.terminal, p.address);
  answer(p.req, p.res, 200, 'OK');
}

async function handleAttlog(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  const t = stillAccepted(ctx, p);
  if (!t) return retryLater(ctx, p);
  const { cfg } = t;
  const parsed = parseAttlog(body.toString('utf8'));
  reportMalformed(ctx, t, 'ATTLOG', parsed.malformed);
  const punches: Punch[] = parsed.records.map((r) => ({
    terminal: cfg.name,
    device: cfg.serial,
    biometricCode: r.pin,
    logTime: r.logTime,
    verifyType: r.verify,
    punchState: r.status,
  }));
  const upload = { terminal: cfg.name, serial: cfg.serial, table: 'ATTLOG', stamp: validStamp(p.query.get('Stamp')) };
  try {
    const r = await ctx.commits.submit({
      upload: { ...upload, at: ctx.clock.now() },
      punches,
      timezone: cfg.timezone,
      malformed: malformedSummary(parsed.malformed),
    });
    if (r.added > 0) ctx.onPunches?.(r.added);
    if (punches.length > 0) logPushed(ctx.logger.child({ terminal: cfg.name }), cfg.name, punches.length, r);
    if (r.quarantined > 0)
      ctx.logger.warn(
        { terminal: cfg.name, quarantined: r.quarantined },
        'punches with an implausible time quarantined',
      );
  } catch (e) {
    ctx.logger.warn(
      { terminal: cfg.name, punches: punches.length, err: errText(e) },
      'cannot journal an upload now: the terminal keeps it and retries',
    );
    return retryLater(ctx, p);
  }
  ctx.contacts.seen(t, p.address);
  // Only now: the punches and the stamp are on disk.
  answer(p.req, p.res, 200, `OK:${punches.length}`);
}

async function handleOperlog(ctx: ReceiverContext, p: PushRequest, table: string): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  const t = stillAccepted(ctx, p);
  if (!t) return retryLater(ctx, p);
  const parsed = parseOperlog(body.toString('utf8'));
  reportMalformed(ctx, t, table, parsed.malformed);
  try {
    ctx.journal.commitUsers(
      {
        terminal: t.cfg.name,
        serial: t.cfg.serial,
        table,
        stamp: validStamp(p.query.get('Stamp')),
        at: ctx.clock.now(),
      },
      parsed.users,
      malformedSummary(parsed.malformed),
    );
  } catch (e) {
    ctx.logger.warn(
      { terminal: t.cfg.name, err: errText(e) },
      'cannot store user records now: terminal asked to retry',
    );
    return retryLater(ctx, p);
  }
  ctx.contacts.seen(t, p.address);
  answer(p.req, p.res, 200, `OK:${parsed.processed}`);
}

/** `GET /iclock/getrequest`: the terminal's status (INFO=) and its poll for queued commands. */
export function handleGetRequest(ctx: ReceiverContext, p: PushRequest): void {
  const info = p.query.get('INFO');
  ctx.contacts.seen(p.terminal, p.address, { info: info ? parseInfoParam(info) : undefined });
  let commands: TerminalCommand[];
  try {
    commands = ctx.journal.takeCommands(p.terminal.cfg.name, ctx.clock.now(), {
      ...COMMANDS_PER_ANSWER,
      resendAfterMs: RESEND_AFTER_MS,
      mayResend,
      isLast: isLastInAnswer,
    });
  } catch (e) {
    // Commands wait for the next poll; the terminal itself is fine.
    ctx.logger.debug({ terminal: p.terminal.cfg.name, err: errText(e) }, 'cannot read the command queue now');
    commands = [];
  }
  if (commands.length === 0) return answer(p.req, p.res, 200, 'OK');
  for (const c of commands)
    ctx.logger.info({ terminal: p.terminal.cfg.name, id: c.id, command: c.command.split('\t')[0] }, 'command sent');
  answer(p.req, p.res, 200, commands.map((c) => `C:${c.id}:${c.command}\n`).join(''));
}

/** `POST /iclock/devicecmd`: results of the commands, recorded against them. */
export async function handleDeviceCmd(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  const results = parseDeviceCmd(body.toString('utf8'));
  const { cfg } = p.terminal;
  try {
    const { settled, unknown } = ctx.journal.settleCommands(
      cfg.name,
      cfg.serial,
      results,
      ctx.clock.now(),
      userChangeOf,
    );
    for (const c of settled)
      ctx.logger.info(
        { terminal: cfg.name, id: c.id, command: c.command.split('\t')[0], returnCode: c.returnCode },
        c.state === 'done' ? 'command done' : 'command failed on the terminal',
      );
    if (unknown.length > 0) ctx.logger.debug({ terminal: cfg.name, ids: unknown }, 'results for unknown command ids');
    const info = results.find((r) => r.content)?.content;
    ctx.contacts.seen(p.terminal, p.address, { info: info ? parseInfoPairs(info) : undefined });
  } catch (e) {
    ctx.logger.warn(
      { terminal: cfg.name, err: errText(e) },
      'cannot record command results now: terminal asked to retry',
    );
    return retryLater(ctx, p);
  }
  answer(p.req, p.res, 200, 'OK');
}

/** `GET /iclock/ping`: a heartbeat during long uploads. */
export function handlePing(ctx: ReceiverContext, p: PushRequest): void {
  ctx.contacts.seen(p.terminal, p.address);
  answer(p.req, p.res, 200, 'OK');
}

/** Newer firmware's `POST /iclock/registry`: registration, answered with a code stable per serial. */
export async function handleRegistry(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  ctx.contacts.seen(p.terminal, p.address, { info: parseInfoPairs(body.toString('utf8')) });
  answer(p.req, p.res, 200, `RegistryCode=${registryCode(p.terminal.cfg.serial)}`);
}

export const registryCode = (serial: string) =>
  createHash('sha256').update(`punchgate:${serial.toUpperCase()}`).digest('hex').slice(0, 16);

/** Newer firmware's `/iclock/push`: the settings under the newer protocol's names. */
export async function handlePushConfig(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  if (p.req.method === 'POST' && (await bodyOf(ctx, p, true)) === undefined) return;
  ctx.contacts.seen(p.terminal, p.address);
  const { cfg } = p.terminal;
  answer(
    p.req,
    p.res,
    200,
    pushBlock({
      settings: ctx.settings(),
      timeZone: timeZoneOption(ctx.clock.now(), cfg.timezone),
      sessionId: registryCode(cfg.serial),
    }),
  );
}

/** `/iclock/querydata` and `/iclock/fdata`: answers to queries and files (photos): acknowledged, not kept. */
export async function handleDiscard(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  if ((await bodyOf(ctx, p, true)) === undefined) return;
  ctx.contacts.seen(p.terminal, p.address);
  answer(p.req, p.res, 200, 'OK');
}
