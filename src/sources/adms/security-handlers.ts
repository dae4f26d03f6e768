import type { KeptUpload, PushEventCount, PushUser } from '../../journal/types.js';
import { uploadLine } from './upload-line.js';
import type { Punch } from '../../punch.js';
import { inoutStatusState } from '../../punch/states.js';
import { printable } from '../../util/terminal-text.js';
import { parseInfoPairs } from './device-info.js';
import type { PushTerminal } from './directory.js';
import { reportUnreadableNames } from './unreadable-names.js';
import {
  bodyOf,
  errText,
  malformedSummary,
  noteContact,
  pauseIfLarge,
  reportKept,
  reportJournalled,
  reportMalformed,
  retryLater,
  stillAccepted,
  type PushRequest,
  type ReceiverContext,
} from './handler-kit.js';
import { answer } from './http-body.js';
import { byteLinesOf, keptBounds, keptOfBytes, tableLabel } from './kept.js';
import { LogBudget } from './log-budget.js';
import { pushBlock, timeZoneOption } from './options.js';
import { parseRtlog, type ParsedRtlog } from './rtlog.js';
import { parseTransactions } from './transaction.js';
import { classifyRtlog, punchEventsOf } from './rtlog-events.js';
import { cookieToken, mintCode, parseRegistryBody, sameSecret, sessionToken } from './security.js';
import { BIOMETRIC_TABLES, parseTableRows, tableName, tableRowCount, tableSpelling, userOfRow } from './tabledata.js';
import { keyValueFields } from './key-values.js';

/**
 * The requests of ZKTeco's Security PUSH (security.ts): registration, configuration, access
 * events (rtlog), door states (rtstate) and table uploads (tabledata).
 */

/** Registration and cookie trouble logged per terminal: at most 5 lines in 10 minutes. */
const troubleBudgets = new WeakMap<PushTerminal['cfg'], LogBudget>();

function trouble(ctx: ReceiverContext, t: PushTerminal, fields: Record<string, unknown>, message: string): void {
  const budget = troubleBudgets.get(t.cfg) ?? new LogBudget(5, 10 * 60_000);
  troubleBudgets.set(t.cfg, budget);
  if (budget.take(ctx.clock.now()) === undefined) return;
  ctx.logger.warn({ terminal: t.cfg.name, serial: t.cfg.serial, ...fields }, message);
}

/**
 * The `Cookie: token=` a registered device sends. A token that does not parse, or does not match
 * the registration, is said in the log with the serial; the request is still served (a refused
 * upload would only make the device hold its punches, and the address rules decide who may push).
 */
export function checkCookie(ctx: ReceiverContext, p: PushRequest): void {
  const token = cookieToken(p.req.headers.cookie);
  if (token === undefined) return;
  const t = p.terminal;
  if (token === 'unparsable') {
    trouble(
      ctx,
      t,
      { cookie: printable(String(p.req.headers.cookie), 60) },
      `terminal SN=${t.cfg.serial} (${t.cfg.name}) sent a Cookie that does not parse (expected token=<hex>): request served; if it persists, re-register the terminal (menu Comm > Cloud Server, save again)`,
    );
    return;
  }
  let reg;
  try {
    reg = ctx.registrations.get(t);
  } catch {
    return;
  }
  if (!reg?.registryCode || !reg.sessionId) return;
  if (!sameSecret(token, sessionToken(reg.registryCode, t.cfg.serial, reg.sessionId)))
    trouble(
      ctx,
      t,
      { address: p.address },
      `terminal SN=${t.cfg.serial} (${t.cfg.name}) sent a token that does not match its registration (it registered with another server, or the request is not from it): request served; if it persists, re-register the terminal`,
    );
}

/** `POST /iclock/registry`: the device's facts kept, answered with its RegistryCode (minted once). */
export async function handleRegistry(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  const t = p.terminal;
  const text = body.toString('utf8');
  const facts = parseRegistryBody(text);
  if (!facts)
    trouble(
      ctx,
      t,
      { body: printable(text, 80) },
      `registry body from terminal SN=${t.cfg.serial} (${t.cfg.name}) could not be read (expected key=value device facts): registered without its facts`,
    );
  const type = facts?.DeviceType?.toLowerCase();
  try {
    const prev = ctx.registrations.get(t);
    const reg = ctx.registrations.save(t, {
      protocol: type === undefined || type === 'acc' ? 'security' : 'attendance',
      registryCode: prev?.registryCode ?? mintCode(),
      sessionId: prev?.sessionId ?? mintCode(16),
      facts: facts ?? prev?.facts ?? {},
      registeredAt: prev?.registeredAt ?? ctx.clock.now(),
    });
    if (!prev?.registryCode)
      ctx.logger.info(
        { terminal: t.cfg.name, serial: t.cfg.serial, model: facts?.DeviceName, firmware: facts?.FirmVer },
        'push terminal registered (Security PUSH)',
      );
    noteContact(ctx, t, p.address, { info: parseInfoPairs(text), pushVersion: facts?.PushVersion });
    answer(p.req, p.res, 200, `RegistryCode=${reg.registryCode}`);
  } catch (e) {
    ctx.logger.warn(
      { terminal: t.cfg.name, err: errText(e) },
      'cannot record a registration now: terminal asked to retry',
    );
    retryLater(ctx, p);
  }
}

/** `/iclock/push`: the configuration that makes the device send users and transactions in real time. */
export async function handlePushConfig(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  if (p.req.method === 'POST' && (await bodyOf(ctx, p, true)) === undefined) return;
  const t = p.terminal;
  let sessionId: string;
  try {
    const prev = ctx.registrations.get(t);
    const reg =
      prev?.registryCode && prev.sessionId && prev.protocol === 'security'
        ? prev
        : ctx.registrations.save(t, {
            protocol: 'security',
            registryCode: prev?.registryCode ?? mintCode(),
            sessionId: prev?.sessionId ?? mintCode(16),
            registeredAt: prev?.registeredAt ?? ctx.clock.now(),
          });
    sessionId = reg.sessionId!;
  } catch (e) {
    ctx.logger.warn(
      { terminal: t.cfg.name, err: errText(e) },
      'cannot read the registration now: terminal asked to retry',
    );
    return retryLater(ctx, p);
  }
  noteContact(ctx, t, p.address);
  answer(
    p.req,
    p.res,
    200,
    pushBlock({ settings: ctx.settings(), timeZone: timeZoneOption(ctx.clock.now(), t.cfg.timezone), sessionId }),
  );
}

/** The device speaks Security PUSH (it sends what only that protocol has): remembered for its handshakes. */
function noteSecurity(ctx: ReceiverContext, t: PushTerminal): void {
  try {
    if (ctx.registrations.get(t)?.protocol !== 'security') ctx.registrations.remember(t, { protocol: 'security' });
  } catch {
    // Only what the status shows: the next upload tries again.
  }
}

const countEvents = (m: Map<string, number>, table: string): PushEventCount[] =>
  [...m].map(([code, count]) => ({ table, code, count }));

/**
 * `POST /iclock/cdata?table=rtlog`: access events. Passes of a person (punchEvents) are
 * journalled as punches with the terminal's wall-clock time; a row with an impossible time is
 * journalled and quarantined; refusals, door and alarm events are counted; rows the receiver
 * cannot read, and events of a person the vendor's table does not name, are kept raw. All in one
 * transaction before the OK.
 */
export async function handleRtlog(ctx: ReceiverContext, p: PushRequest, how: TableHow = RTLOG): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  const t = stillAccepted(ctx, p);
  if (!t) return retryLater(ctx, p);
  checkCookie(ctx, p);
  // An answer to a query is no sign of the protocol (as for tabledata, below).
  if (!how.query) noteSecurity(ctx, t);
  const text = body.toString('utf8');
  await journalAccessEvents(ctx, p, t, {
    table: how.label,
    text,
    bytes: body,
    parsed: parseRtlog(text),
    ok: answerOf(how, text),
  });
}

/**
 * How an upload of access events is labelled and answered: `table=rtlog` and `table=transaction`
 * with `OK`; as tabledata (`tablename=rtlog|transaction`, or a query's answer) with
 * `<tablename>=<rows received>`, the name as the device spelled it.
 */
export interface TableHow {
  label: string;
  /** 'OK', or the table name to answer `<name>=<rows>` with. */
  answer: 'OK' | { table: string };
  query: boolean;
}

const RTLOG: TableHow = { label: 'rtlog', answer: 'OK', query: false };

/**
 * What an upload is answered once stored: `OK`, or `<tablename>=<rows received>`, the rows counted
 * as every tabledata answer counts them (a bare `ATTLOG` header line is no row).
 */
export const answerOf = (how: TableHow, text: string) =>
  how.answer === 'OK' ? 'OK' : `${how.answer.table}=${tableRowCount(text, how.answer.table)}`;

/**
 * The stored access events of the `transaction` table (transaction.ts): `table=transaction`
 * (answered `OK`), `table=tabledata&tablename=transaction` and the answer to a `DATA QUERY` of
 * it (answered `transaction=<rows received>`). Read as rtlog is: the same events, under the
 * access-control SDK's field names; which are punches is decided alike (punchEvents).
 */
export async function handleTransactions(ctx: ReceiverContext, p: PushRequest, how: TableHow): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  const t = stillAccepted(ctx, p);
  if (!t) return retryLater(ctx, p);
  checkCookie(ctx, p);
  // An answer to a query is no sign of the protocol (as for tabledata, below).
  if (!how.query) noteSecurity(ctx, t);
  const text = body.toString('utf8');
  await journalAccessEvents(ctx, p, t, {
    table: how.label,
    text,
    bytes: body,
    parsed: parseTransactions(text),
    ok: answerOf(how, text),
  });
}

/**
 * Access events read (rtlog, transaction): passes of a person (punchEvents) are journalled as
 * punches with the terminal's wall-clock time; a row with an impossible time is journalled and
 * quarantined; refusals, door and alarm events are counted; rows that cannot be read, and events
 * of a person the vendor's table does not name, are kept raw. All in one transaction, then `ok`.
 */
async function journalAccessEvents(
  ctx: ReceiverContext,
  p: PushRequest,
  t: PushTerminal,
  u: { table: string; text: string; bytes: Buffer; parsed: ParsedRtlog; ok: string },
): Promise<void> {
  const { cfg } = t;
  const { table, text, parsed } = u;
  await pauseIfLarge(text);
  reportMalformed(ctx, t, table, parsed.malformed);
  const punchEvents = punchEventsOf(cfg);
  const punches: Punch[] = [];
  const events = new Map<string, number>();
  const unknown: number[] = [];
  for (const row of parsed.rows) {
    const kind = classifyRtlog(row, punchEvents);
    if (kind === 'punch')
      punches.push({
        terminal: cfg.name,
        device: cfg.serial,
        biometricCode: row.pin,
        logTime: row.time,
        verifyType: row.verify,
        // Entry and exit as check-in and check-out; 2 (no passage direction) as no state.
        punchState: inoutStatusState(row.inout),
      });
    else if (kind === 'not-punch') events.set(String(row.event), (events.get(String(row.event)) ?? 0) + 1);
    else unknown.push(row.line);
  }
  const firstUnknown = parsed.rows.find((r) => r.line === unknown[0]);
  const unreadable = keptOfBytes(
    table,
    malformedSummary(parsed.malformed).first ?? '',
    byteLinesOf(
      u.bytes,
      parsed.malformed.map((m) => m.line),
    ),
  );
  const unnamed = keptOfBytes(
    table,
    `event ${firstUnknown?.event} of a user is not known as a pass (not one of the vendor's passes, nor in punchEvents)`,
    byteLinesOf(u.bytes, unknown),
  );
  const kept = [unreadable, unnamed].filter((k): k is KeptUpload => k !== undefined);
  await pauseIfLarge(text);
  try {
    const r = await ctx.commits.submit({
      upload: { terminal: cfg.name, serial: cfg.serial, table, stamp: null, at: ctx.clock.now() },
      punches,
      timezone: cfg.timezone,
      malformed: malformedSummary(parsed.malformed),
      extra: { kept, events: countEvents(events, table), keptBounds: keptBounds(ctx.settings()) },
    });
    reportJournalled(ctx, cfg.name, punches.length, r, 'passes');
  } catch (e) {
    ctx.logger.warn(
      { terminal: cfg.name, punches: punches.length, err: errText(e) },
      'cannot journal an upload now: the terminal keeps it and retries',
    );
    return retryLater(ctx, p);
  }
  reportKept(ctx, t, [unnamed]);
  noteContact(ctx, t, p.address);
  // Only now: the punches and the lines kept raw are on disk.
  answer(p.req, p.res, 200, u.ok);
}

/** `POST /iclock/cdata?table=rtstate`: door, relay and alarm states. Not punches: counted; unreadable rows kept raw. */
export async function handleRtstate(ctx: ReceiverContext, p: PushRequest): Promise<void> {
  const body = await bodyOf(ctx, p);
  if (body === undefined) return;
  const t = stillAccepted(ctx, p);
  if (!t) return retryLater(ctx, p);
  checkCookie(ctx, p);
  noteSecurity(ctx, t);
  const text = body.toString('utf8');
  let states = 0;
  const bad: number[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = uploadLine(raw);
    if (line.trim() === '') return;
    if (keyValueFields(line)?.has('time')) states++;
    else bad.push(i + 1);
  });
  const kept = keptOfBytes('rtstate', `line ${bad[0]}: not key=value fields with a time`, byteLinesOf(body, bad));
  try {
    ctx.journal.commitRecords(
      { terminal: t.cfg.name, serial: t.cfg.serial, table: 'rtstate', stamp: null, at: ctx.clock.now() },
      {
        events: [{ table: 'rtstate', code: 'state', count: states }],
        kept: kept ? [kept] : [],
        keptBounds: keptBounds(ctx.settings()),
      },
    );
  } catch (e) {
    ctx.logger.warn(
      { terminal: t.cfg.name, err: errText(e) },
      'cannot record door states now: terminal asked to retry',
    );
    return retryLater(ctx, p);
  }
  reportKept(ctx, t, [kept]);
  noteContact(ctx, t, p.address);
  answer(p.req, p.res, 200, 'OK');
}

/**
 * `POST /iclock/cdata?table=tabledata&tablename=<t>&count=<n>` (and querydata answers): `user`
 * rows are the terminal's users (fed to the roster features, like OPERLOG's USER records);
 * photos and templates are counted, never kept; other tables are kept raw. Answered
 * `<t>=<rows received>`, as the document asks.
 */
export async function handleTabledata(
  ctx: ReceiverContext,
  p: PushRequest,
  rawName: string | null,
  how: 'upload' | 'query answer' = 'upload',
): Promise<void> {
  const name = tableName(rawName);
  const spelled = tableSpelling(rawName) ?? 'table';
  // Access events as table rows: read as rtlog and transaction uploads are (punches journalled).
  const access = { label: `tabledata:${name}`, answer: { table: spelled }, query: how !== 'upload' };
  if (name === 'transaction') return handleTransactions(ctx, p, access);
  if (name === 'rtlog') return handleRtlog(ctx, p, access);
  const biometric = name !== undefined && BIOMETRIC_TABLES.has(name);
  const body = await bodyOf(ctx, p, biometric);
  if (body === undefined) return;
  const t = stillAccepted(ctx, p);
  if (!t) return retryLater(ctx, p);
  checkCookie(ctx, p);
  // An answer to a query is no sign of the protocol: attendance firmware (a BioFace A1) answers a
  // users query on querydata with tabledata too, and answered as Security PUSH it stops uploading.
  if (how === 'upload') noteSecurity(ctx, t);
  const label = `tabledata:${name ?? tableLabel(rawName)}`;
  // User names come in the terminal's own character set (its `encoding`), as on OPERLOG; the rest is ASCII.
  const text = t.names.decode(body).text;
  let received: number;
  const users: PushUser[] = [];
  const kept: KeptUpload[] = [];
  const events: PushEventCount[] = [];
  if (biometric) {
    // Read to the end without keeping it: the count is what the device sent (its count=).
    const declared = Number(p.query.get('count'));
    received = Number.isSafeInteger(declared) && declared >= 0 ? declared : 1;
    events.push({ table: label, code: /photo|pic/.test(name) ? 'photo' : 'template', count: received });
  } else {
    const parsed = parseTableRows(text, name ?? '');
    await pauseIfLarge(text);
    received = parsed.received;
    const bad = parsed.malformed.map((m) => m.line);
    let firstProblem = parsed.malformed[0] ? `line ${parsed.malformed[0].line}: ${parsed.malformed[0].reason}` : '';
    if (name === 'user') {
      for (const row of parsed.rows) {
        const u = userOfRow(row);
        if ('problem' in u) {
          bad.push(row.line);
          firstProblem ||= `line ${row.line}: ${u.problem}`;
        } else users.push(u);
      }
      reportMalformed(ctx, t, label, parsed.malformed);
      reportUnreadableNames(ctx, t.cfg, users);
      const k = keptOfBytes(
        label,
        firstProblem,
        byteLinesOf(
          body,
          bad.sort((a, b) => a - b),
        ),
      );
      if (k) kept.push(k);
    } else if (parsed.received > 0) {
      const k = keptOfBytes(
        label,
        'a table punchgate does not read',
        byteLinesOf(
          body,
          [...parsed.rows.map((r) => r.line), ...bad].sort((a, b) => a - b),
        ),
      );
      if (k) kept.push(k);
    }
  }
  await pauseIfLarge(text);
  try {
    const upload = { terminal: t.cfg.name, serial: t.cfg.serial, table: label, stamp: null, at: ctx.clock.now() };
    const extra = { kept, events, keptBounds: keptBounds(ctx.settings()) };
    if (users.length > 0) ctx.journal.commitUsers(upload, users, { count: 0, first: null }, extra);
    else ctx.journal.commitRecords(upload, extra);
  } catch (e) {
    ctx.logger.warn(
      { terminal: t.cfg.name, err: errText(e) },
      'cannot store a table upload now: terminal asked to retry',
    );
    return retryLater(ctx, p);
  }
  reportKept(ctx, t, kept);
  noteContact(ctx, t, p.address);
  answer(p.req, p.res, 200, `${spelled}=${received}`);
}
