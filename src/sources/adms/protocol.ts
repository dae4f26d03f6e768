import type { KeptUpload, PushExtra, PushMalformed, TerminalCommand } from '../../journal/types.js';
import type { Punch } from '../../punch.js';
import { cutLastLine, parseAttlog } from './attlog.js';
import { isLastInAnswer, mayResend } from './commands.js';
import { parseDeviceCmd } from './devicecmd.js';
import { parseInfoPairs, parseInfoParam } from './device-info.js';
import {
  bodyOf,
  errText,
  malformedSummary,
  noteContact,
  pauseIfLarge,
  reportKept,
  reportJournalled,
  refuseCutBody,
  reportMalformed,
  retryLater,
  stampOf,
  stillAccepted,
  type PushRequest,
  type ReceiverContext,
} from './handler-kit.js';
import { answer } from './http-body.js';
import { byteLinesOf, keptBody, keptBounds, keptOfBytes, tableLabel } from './kept.js';
import type { NameCodec } from '../../util/name-codec.js';
import { reportUnreadableNames } from './unreadable-names.js';
import { parseOperlog } from './operlog.js';
import { handshakeDialect, uploadDialect } from './dialect.js';
import { settleQueryAnswer } from './querydata.js';
import { settleFrom } from './command-results.js';
import { optionBlock, registeredBlock, timeZoneOption, timeZoneOptionOf, uploadAnswer } from './options.js';
import {
  answerOf,
  checkCookie,
  handleRtlog,
  handleRtstate,
  handleTabledata,
  handleTransactions,
  type TableHow,
} from './security-handlers.js';
import { declaredProtocol, protocolOf } from './security.js';
import { BIOMETRIC_TABLES, tableName, tableSpelling } from './tabledata.js';
import { askIfZoneStale, noteZoneTold, zoneNow } from './zone-check.js';

export type { PushRequest, ReceiverContext } from './handler-kit.js';

/** Commands in one getrequest answer at most (ZKTeco's own server: about 200, 40 KB). */
const COMMANDS_PER_ANSWER = { max: 50, maxBytes: 40_960 };
/** A harmless command handed out without a result is sent again after this long. */
const RESEND_AFTER_MS = 10 * 60_000;

/**
 * `GET /iclock/cdata?options=all`, the handshake. Attendance protocol: the option block, with
 * the stamps of the last durable uploads. Security PUSH (security.ts): `OK` while the device is
 * not registered, else `registry=ok`, its RegistryCode and the configuration.
 */
export function handleOptions(ctx: ReceiverContext, p: PushRequest): void {
  const { cfg } = p.terminal;
  if (p.query.get('options') === null) {
    noteContact(ctx, p.terminal, p.address);
    return answer(p.req, p.res, 200, 'OK');
  }
  const pushVersion = p.query.get('pushver') ?? undefined;
  let stamps: Record<string, string>;
  try {
    const known = ctx.registrations.get(p.terminal);
    const protocol = protocolOf(p.query, known);
    // The device said which protocol it speaks (DeviceType=, or attendance firmware's pushver over
    // a guess): remembered, so that a later handshake without it is answered alike.
    if (known?.protocol !== protocol && (declaredProtocol(p.query) !== undefined || known?.protocol === 'security'))
      ctx.registrations.remember(p.terminal, { protocol });
    if (protocol === 'security') {
      noteContact(ctx, p.terminal, p.address, { pushVersion });
      const reg = ctx.registrations.get(p.terminal);
      const body =
        reg?.registryCode && reg.sessionId
          ? registeredBlock({
              registryCode: reg.registryCode,
              sessionId: reg.sessionId,
              settings: ctx.settings(),
              timeZone: timeZoneOption(ctx.clock.now(), cfg.timezone),
            })
          : 'OK';
      return answer(p.req, p.res, 200, body);
    }
    stamps = ctx.journal.stamps(cfg.name, cfg.serial);
  } catch (e) {
    // Never "0" by mistake: that would make the terminal upload its whole log again.
    ctx.logger.warn({ terminal: cfg.name, err: errText(e) }, 'cannot read the stamps now: terminal asked to retry');
    return retryLater(ctx, p);
  }
  noteContact(ctx, p.terminal, p.address, { pushVersion });
  const zone = zoneNow(ctx, p.terminal);
  noteZoneTold(ctx, p.terminal, zone);
  const body = optionBlock({
    serial: cfg.serial,
    stamps,
    settings: ctx.settings(),
    timeZone: timeZoneOptionOf(zone),
    pushVersion,
    dialect: handshakeDialect(ctx, p.terminal, pushVersion),
  });
  answer(p.req, p.res, 200, body);
}

/**
 * `POST /iclock/cdata?table=...`: punches (ATTLOG, rtlog), user records (OPERLOG, USERINFO,
 * tabledata), device options, door states (rtstate), photos (counted, not kept). Anything else
 * is kept raw in the journal (kept.ts) before the OK.
 */
export async function handleUpload(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  const raw = p.query.get('table') ?? '';
  const table = raw.toUpperCase();
  if (table === 'ATTLOG') return handleAttlog(ctx, p);
  if (table === 'OPERLOG' || table === 'USERINFO') return handleOperlog(ctx, p, table);
  if (table === 'RTLOG') return handleRtlog(ctx, p);
  if (table === 'TRANSACTION') return handleTransactions(ctx, p, { label: 'transaction', answer: 'OK', query: false });
  if (table === 'RTSTATE') return handleRtstate(ctx, p);
  if (table === 'TABLEDATA') return handleTable(ctx, p, 'upload');
  if (table === 'OPTIONS') {
    const body = await bodyOf(ctx, p);
    if (body === undefined) return;
    noteContact(ctx, p.terminal, p.address, { info: parseInfoPairs(body.toString('utf8')) });
    return answer(p.req, p.res, 200, 'OK');
  }
  if (table === 'ATTPHOTO' || BIOMETRIC_TABLES.has(raw.toLowerCase())) return handleCounted(ctx, p, raw);
  return handleUnknownTable(ctx, p, raw);
}

/**
 * `table=tabledata&tablename=<t>` and the answers to `DATA QUERY` (querydata): rows of ATTLOG are
 * punches, read as an ATTLOG upload is (newer push firmware uploads its attendance table so, and
 * answers a query of it so); the other tables: security-handlers.ts.
 */
function handleTable(ctx: ReceiverContext, p: PushRequest, how: 'upload' | 'query answer'): Promise<void> {
  const raw = p.query.get('tablename');
  if (tableName(raw) !== 'attlog') return handleTabledata(ctx, p, raw, how);
  return handleAttlog(ctx, p, {
    label: 'tabledata:attlog',
    answer: { table: tableSpelling(raw)! },
    query: how !== 'upload',
  });
}

/**
 * Punches: `table=ATTLOG` (its Stamp kept, answered `OK:<punches>`), or ATTLOG rows as tabledata
 * (`how`: no stamp, answered `<tablename>=<rows received>`, unreadable rows kept raw).
 */
async function handleAttlog(ctx: ReceiverContext, p: PushRequest, how?: TableHow): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  const t = stillAccepted(ctx, p);
  if (!t) return retryLater(ctx, p);
  const { cfg } = t;
  const label = how?.label ?? 'ATTLOG';
  const text = body.toString('utf8');
  // An upload of punches is never empty (a terminal with none sends none): an empty one is a
  // `Content-Length: 0` before a body that came on its own, and its OK would lose that body.
  const cut = how || text !== '' ? cutLastLine(text) : `it came empty${emptyHow(p)}`;
  if (cut !== undefined) return refuseCutBody(ctx, p, cut);
  const parsed = parseAttlog(text);
  await pauseIfLarge(text);
  reportMalformed(ctx, t, label, parsed.malformed);
  const punches: Punch[] = parsed.records.map((r) => ({
    terminal: cfg.name,
    device: cfg.serial,
    biometricCode: r.pin,
    logTime: r.logTime,
    verifyType: r.verify,
    punchState: r.status,
  }));
  const malformed = malformedSummary(parsed.malformed);
  const kept = keptOfBytes(
    label,
    malformed.first ?? '',
    byteLinesOf(
      body,
      parsed.malformed.map((m) => m.line),
    ),
  );
  const upload = { terminal: cfg.name, serial: cfg.serial, table: label, stamp: how ? null : stampOf(ctx, p) };
  await pauseIfLarge(text);
  let added = 0;
  try {
    const r = await ctx.commits.submit({
      upload: { ...upload, at: ctx.clock.now() },
      punches,
      timezone: cfg.timezone,
      malformed,
      extra: attlogExtra(label, kept, parsed.idCardChecks.length, ctx),
    });
    reportJournalled(ctx, cfg.name, punches.length, r, 'punches');
    added = r.added;
  } catch (e) {
    ctx.logger.warn(
      { terminal: cfg.name, punches: punches.length, err: errText(e) },
      'cannot journal an upload now: the terminal keeps it and retries',
    );
    return retryLater(ctx, p);
  }
  noteContact(ctx, t, p.address);
  // Only now: the punches, the lines kept raw and the stamp are on disk.
  // ID card checks were read and recorded too: processed, as the protocol's `OK:<n>` counts.
  const processed = punches.length + parsed.idCardChecks.length;
  const said = how ? answerOf(how, text) : uploadAnswer(uploadDialect(ctx, t), processed);
  if (!how) ctx.repeats.seen(ctx, t, body, punches.length, added, said);
  answer(p.req, p.res, 200, said);
}

/** How an upload came empty, for the admin's words: a `Content-Length: 0`, or chunks of nothing. */
const emptyHow = (p: PushRequest) => (p.req.headers['content-length'] === '0' ? ' (Content-Length: 0)' : '');

/**
 * What an ATTLOG upload carries beside its punches: the lines kept raw, and the ID card checks
 * (attlog.ts), counted as a record that is not a punch (the status lists them, `ATTLOG id-card-check`).
 */
function attlogExtra(
  label: string,
  kept: KeptUpload | undefined,
  idCardChecks: number,
  ctx: ReceiverContext,
): PushExtra | undefined {
  if (!kept && idCardChecks === 0) return undefined;
  return {
    ...(kept ? { kept: [kept], keptBounds: keptBounds(ctx.settings()) } : {}),
    ...(idCardChecks > 0 ? { events: [{ table: label, code: 'id-card-check', count: idCardChecks }] } : {}),
  };
}

async function handleOperlog(ctx: ReceiverContext, p: PushRequest, table: string): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  const t = stillAccepted(ctx, p);
  if (!t) return retryLater(ctx, p);
  // User names come in the terminal's own character set (its `encoding`: GBK, Big5...); the rest is ASCII.
  const text = t.names.decode(body).text;
  const parsed = parseOperlog(text);
  await pauseIfLarge(text);
  reportMalformed(ctx, t, table, parsed.malformed);
  reportUnreadableNames(ctx, t.cfg, parsed.users);
  const malformed: PushMalformed = malformedSummary(parsed.malformed);
  const kept = keptOfBytes(
    table,
    malformed.first ?? '',
    byteLinesOf(
      body,
      parsed.malformed.map((m) => m.line),
    ),
  );
  await pauseIfLarge(text);
  try {
    ctx.journal.commitUsers(
      {
        terminal: t.cfg.name,
        serial: t.cfg.serial,
        table,
        stamp: stampOf(ctx, p),
        at: ctx.clock.now(),
      },
      parsed.users,
      malformed,
      {
        kept: kept ? [kept] : [],
        events: [...parsed.known].map(([code, count]) => ({ table, code, count })),
        keptBounds: keptBounds(ctx.settings()),
      },
    );
  } catch (e) {
    ctx.logger.warn(
      { terminal: t.cfg.name, err: errText(e) },
      'cannot store user records now: terminal asked to retry',
    );
    return retryLater(ctx, p);
  }
  noteContact(ctx, t, p.address);
  answer(p.req, p.res, 200, uploadAnswer(uploadDialect(ctx, t), parsed.processed));
}

/**
 * Photos and biometric templates (ATTPHOTO, BIODATA, USERPIC...): read to the end, counted per
 * terminal and table, never kept (punchgate keeps no biometric data; the pass itself comes in
 * ATTLOG or rtlog). The stamp of ATTPHOTO is kept and told back in the handshake, so that the
 * terminal does not send its photos again at each start (no other table's stamp is ever told).
 */
async function handleCounted(ctx: ReceiverContext, p: PushRequest, raw: string): Promise<void> {
  const body = await bodyOf(ctx, p, true);
  if (body === undefined) return;
  const { cfg } = p.terminal;
  const table = tableLabel(raw);
  const code = /photo|pic|file/i.test(table) ? 'photo' : 'template';
  try {
    ctx.journal.commitRecords(
      {
        terminal: cfg.name,
        serial: cfg.serial,
        table: table.toUpperCase(),
        stamp: stampOf(ctx, p),
        at: ctx.clock.now(),
      },
      { events: [{ table, code, count: 1 }] },
    );
  } catch (e) {
    ctx.logger.warn(
      { terminal: cfg.name, table, err: errText(e) },
      'cannot record an upload now: terminal asked to retry',
    );
    return retryLater(ctx, p);
  }
  noteContact(ctx, p.terminal, p.address);
  answer(p.req, p.res, 200, 'OK');
}

/** A table punchgate does not read: the body is kept raw (bounded) before the OK, and an alert says so. */
async function handleUnknownTable(ctx: ReceiverContext, p: PushRequest, raw: string): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  const t = stillAccepted(ctx, p);
  if (!t) return retryLater(ctx, p);
  const table = tableLabel(raw);
  const text = body.toString('utf8');
  const kept = text.trim() === '' ? undefined : keptBody(table, 'a table punchgate does not read', body);
  try {
    ctx.journal.commitRecords(
      {
        terminal: t.cfg.name,
        serial: t.cfg.serial,
        table,
        stamp: kept ? stampOf(ctx, p) : null,
        at: ctx.clock.now(),
      },
      kept
        ? { kept: [kept], keptBounds: keptBounds(ctx.settings()) }
        : { events: [{ table, code: 'empty', count: 1 }] },
    );
  } catch (e) {
    ctx.logger.warn(
      { terminal: t.cfg.name, table, err: errText(e) },
      'cannot keep an upload now: terminal asked to retry',
    );
    return retryLater(ctx, p);
  }
  reportKept(ctx, t, [kept]);
  noteContact(ctx, t, p.address);
  answer(p.req, p.res, 200, 'OK');
}

/** `GET /iclock/getrequest`: the terminal's status (INFO=) and its poll for queued commands. */
export function handleGetRequest(ctx: ReceiverContext, p: PushRequest): void {
  const info = p.query.get('INFO');
  noteContact(ctx, p.terminal, p.address, { info: info ? parseInfoParam(info) : undefined });
  askIfZoneStale(ctx, p.terminal);
  const codec = p.terminal.names;
  let taken: TerminalCommand[];
  try {
    taken = ctx.journal.takeCommands(p.terminal.cfg.name, ctx.clock.now(), {
      ...COMMANDS_PER_ANSWER,
      resendAfterMs: RESEND_AFTER_MS,
      mayResend,
      isLast: isLastInAnswer,
      // Only a result from this address settles them (the trust gate admitted it: trust-gate.ts).
      to: p.address,
      unsendable: (command) => unsendable(codec, command),
    });
  } catch (e) {
    // Commands wait for the next poll; the terminal itself is fine.
    ctx.logger.debug({ terminal: p.terminal.cfg.name, err: errText(e) }, 'cannot read the command queue now');
    taken = [];
  }
  for (const c of taken.filter((x) => x.state === 'failed'))
    ctx.logger.warn(
      { terminal: p.terminal.cfg.name, id: c.id, command: c.command.split('\t')[0], encoding: codec.encoding },
      `${p.terminal.cfg.name}: command ${c.id} failed, not sent: ${c.result} (punchgate terminals commands ${p.terminal.cfg.name} shows it)`,
    );
  const commands = taken.filter((c) => c.state === 'sent');
  if (commands.length === 0) return answer(p.req, p.res, 200, 'OK');
  for (const c of commands)
    ctx.logger.info({ terminal: p.terminal.cfg.name, id: c.id, command: c.command.split('\t')[0] }, 'command sent');
  const text = commands.map((c) => `C:${c.id}:${c.command}\n`).join('');
  if (codec.isUtf8) return answer(p.req, p.res, 200, text);
  // Every command here was checked by `unsendable`: its text is in the terminal's character set.
  const bytes = Buffer.concat(commands.map((c) => codec.encode(`C:${c.id}:${c.command}\n`)!));
  answer(p.req, p.res, 200, bytes, { 'Content-Type': `text/plain; charset=${codec.encoding}` });
}

/**
 * Why a command cannot go to a terminal in its own character set (names in `DATA UPDATE
 * USERINFO`): text the set cannot hold, queued before `encoding` was set. It is never sent as
 * garbage; sync-users refuses such names before it queues them.
 */
function unsendable(codec: NameCodec, command: string): string | null {
  if (codec.isUtf8 || codec.encode(command) !== null) return null;
  const chars = codec
    .unencodable(command)
    .map((c) => `"${c}" (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`);
  return `not sent: its text has characters ${codec.encoding} (the terminal's encoding) cannot hold: ${chars.join(', ')}; queue it again in characters of that set (sync-users does)`;
}

/** `POST /iclock/devicecmd`: results of the commands, recorded against them. */
export async function handleDeviceCmd(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  const results = parseDeviceCmd(body.toString('utf8'));
  const { cfg } = p.terminal;
  try {
    const unknown = settleFrom(ctx, p, results);
    if (unknown.length > 0) ctx.logger.debug({ terminal: cfg.name, ids: unknown }, 'results for unknown command ids');
    const info = results.find((r) => r.content)?.content;
    noteContact(ctx, p.terminal, p.address, { info: info ? parseInfoPairs(info) : undefined });
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
  checkCookie(ctx, p);
  noteContact(ctx, p.terminal, p.address);
  answer(p.req, p.res, 200, 'OK');
}

/**
 * `/iclock/querydata` (answers to data queries) and `/iclock/fdata` (files): tabledata is read,
 * files counted. An answer naming its command (`cmdid=`) settles that command (querydata.ts).
 */
export async function handleQueryData(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  if ((p.query.get('type') ?? '').toLowerCase() === 'tabledata') await handleTable(ctx, p, 'query answer');
  else await handleCounted(ctx, p, p.query.get('tablename') ?? 'file');
  settleQueryAnswer(ctx, p);
}
