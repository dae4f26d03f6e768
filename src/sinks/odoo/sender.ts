import type { AttendanceAnswer, PunchResult } from '../../hrms/answer.js';
import { HrmsHttp } from '../../hrms/http.js';
import { outsideText } from '../../hrms/text.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { scrubberFor } from '../../util/secrets.js';
import type { SinkPunch, SinkSendOptions, SinkSender } from '../types.js';
import { Json2Api, JsonRpcApi, OdooTransport, serverMajor, type CallContext, type OdooApi } from './api.js';
import { EmployeeDirectory, type EmployeeMatch } from './employees.js';
import { notAnAnswer, OdooCallError, recordsOf, type OdooFailure } from './failure.js';
import { odooDefaults, type OdooSinkOptions, type ResolvedOdooOptions } from './options.js';
import { pairStep, type Attendance } from './pairing.js';
import { EMPLOYEES_HAVE, NO_EMPLOYEE } from './refusal-words.js';
import { formatUtc, parseUtc, wallClockToUtc } from '../../punch/wall-clock-utc.js';

export interface OdooSenderDeps {
  /** The sink's name in the config, for the keys its failures name (`sinks[erp].baseUrl`). */
  name?: string;
  clock?: Clock;
  /** Where proxy variables are read; default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** The message of a punch that is already in Odoo: the default delivery.patterns.duplicate match "already recorded". */
export const ALREADY_RECORDED = 'already recorded in Odoo';

/** The message of a punch held behind an earlier refused punch of the same employee (it goes back to the queue). */
export const HELD_PREFIX = 'held: an earlier punch of this employee';

/** The first Odoo version with the JSON-2 API. */
const JSON2_SINCE = 19;

/**
 * Delivers punches to Odoo's hr.attendance (see docs/sinks-odoo.md). Each punch costs a read of
 * the employee's records around its time and at most one write, so it goes one call at a time;
 * the punches of one employee are applied in time order, one after the other (a pair must be
 * opened before it is closed), different employees in parallel, `concurrency` calls at most.
 */
export class OdooSender implements SinkSender {
  readonly options: ResolvedOdooOptions;
  private readonly http: HrmsHttp;
  private readonly transport: OdooTransport;
  private readonly employees: EmployeeDirectory;
  private chosen: OdooApi | undefined;
  /** hr.attendance has no out_mode (Odoo 16): learnt from its refusal of a read naming it. */
  private noOutMode = false;
  private scrubbing: { token: string; scrub: (s: string) => string } | undefined;

  constructor(opts: OdooSinkOptions, deps: OdooSenderDeps = {}) {
    this.options = odooDefaults(opts);
    const o = this.options;
    const url = new URL(o.baseUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new Error(`odoo baseUrl: expected http(s)://, found ${url.protocol}`);
    if (url.protocol === 'http:' && !isLoopback(url.hostname) && !o.allowInsecureHttp)
      throw new Error(
        'odoo baseUrl: must be https:// (http:// is accepted for loopback hosts, or with allowInsecureHttp: true)',
      );
    this.http = new HrmsHttp(
      {
        baseUrl: o.baseUrl,
        timeoutMs: o.timeoutMs,
        connectTimeoutMs: Math.min(10_000, o.timeoutMs),
        connections: o.concurrency,
        ...(o.caFile !== undefined ? { caFile: o.caFile } : {}),
      },
      deps.env ? { env: deps.env } : {},
    );
    const baseUrlKey = deps.name !== undefined ? `sinks[${deps.name}].baseUrl` : "the Odoo sink's baseUrl";
    this.transport = new OdooTransport(this.http, o.baseUrl, baseUrlKey);
    this.employees = new EmployeeDirectory(o.employeeField, o.employeeCacheSeconds, deps.clock ?? systemClock);
    if (o.api === 'json2') this.chosen = new Json2Api(this.transport, o.database);
    if (o.api === 'jsonrpc') this.chosen = new JsonRpcApi(this.transport, o.database, o.login);
  }

  route(): string {
    return this.http.route(this.options.baseUrl);
  }

  /** Which API is in use ('json2', 'jsonrpc'), once known. */
  apiKind(): 'json2' | 'jsonrpc' | undefined {
    return this.chosen?.kind;
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  async send(punches: readonly SinkPunch[], { token, signal }: SinkSendOptions): Promise<AttendanceAnswer> {
    const ctx: CallContext = { key: token, scrub: this.scrubberFor(token), ...(signal ? { signal } : {}) };
    if (punches.length === 0) return this.probe(ctx);
    let api: OdooApi;
    let matches: Map<string, EmployeeMatch>;
    try {
      api = await this.api(ctx);
      matches = await this.employees.resolve(
        punches.map((p) => p.biometricCode),
        api,
        ctx,
      );
    } catch (e) {
      return wholeBatch(failureOf(e));
    }

    const results: Array<PunchResult | undefined> = new Array<PunchResult | undefined>(punches.length);
    // A failure that ends the batch (auth, request-failed), and the last per-punch unknown one.
    let stop: OdooFailure | undefined;
    let lastUnknown: Extract<OdooFailure, { kind: 'unknown' }> | undefined;
    // One queue per code, in time order (UTC: two terminals of one person may sit in two zones).
    const queues = new Map<string, Array<{ i: number; at: string }>>();
    punches.forEach((p, i) => {
      let at: string;
      try {
        at = wallClockToUtc(p.logTime, p.timezone);
      } catch (e) {
        results[i] = {
          status: false,
          message: `the punch's time cannot be read in zone ${p.timezone}: ${e instanceof Error ? e.message : String(e)}`,
        };
        return;
      }
      const q = queues.get(p.biometricCode) ?? [];
      q.push({ i, at });
      queues.set(p.biometricCode, q);
    });
    const work = [...queues.entries()].map(([code, q]) => ({
      code,
      q: q.sort((a, b) => parseUtc(a.at) - parseUtc(b.at)),
    }));

    const runOne = async (code: string, q: Array<{ i: number; at: string }>) => {
      const match = matches.get(code)!;
      // A refused punch holds this employee's later ones: paired without it, they would make wrong
      // records for good (journal/held-behind-refused.ts holds them in later batches).
      let refusedAt: string | undefined;
      for (const { i, at } of q) {
        if (stop) return;
        const p = punches[i]!;
        if (refusedAt !== undefined) {
          results[i] = {
            status: false,
            unknown: true,
            message: `${HELD_PREFIX} at ${refusedAt} UTC was refused by Odoo; this one waits until it is in`,
          };
          continue;
        }
        if (match.kind === 'none') {
          results[i] = {
            status: false,
            message: `${NO_EMPLOYEE} ${this.options.employeeField} "${ctx.scrub(code)}" (or that employee is archived)`,
          };
          continue;
        }
        if (match.kind === 'many') {
          results[i] = {
            status: false,
            message: `${match.names.length} ${EMPLOYEES_HAVE} ${this.options.employeeField} "${ctx.scrub(code)}" (${outsideText(match.names.slice(0, 3).join(', '), ctx.scrub)}): give each a code of its own`,
          };
          continue;
        }
        try {
          results[i] = await this.apply(api, match.id, at, p, ctx);
          if (!results[i]!.status) refusedAt = at;
        } catch (e) {
          const f = failureOf(e);
          if (f.kind === 'refused') {
            results[i] = { status: false, message: f.message };
            refusedAt = at;
          } else if (f.kind === 'unknown') {
            results[i] = { status: false, unknown: true, message: f.message };
            lastUnknown = f;
            // The employee's later punches wait: one after a failed one may pair wrongly.
            return;
          } else {
            stop ??= f;
            return;
          }
        }
      }
    };
    await pool(work, this.options.concurrency, (w) => runOne(w.code, w.q));
    if (stop) return wholeBatch(stop);

    // Punches not reached (their employee's earlier punch failed): back to the queue uncharged.
    const filled: PunchResult[] = results.map(
      (r) =>
        r ?? {
          status: false,
          unknown: true,
          message: "not sent: an earlier punch of this employee's is not yet in Odoo",
        },
    );
    const answered = filled.filter((r) => !r.unknown);
    if (answered.length === 0 && lastUnknown) return wholeBatch(lastUnknown);
    return { kind: 'answered', httpStatus: 200, overall: true, results: filled };
  }

  /** One punch: read the employee's records around its time, then at most one write. */
  private async apply(
    api: OdooApi,
    employeeId: number,
    at: string,
    p: SinkPunch,
    ctx: CallContext,
  ): Promise<PunchResult> {
    const t = parseUtc(at);
    const longest = this.options.longestShiftHours * 3600_000;
    const from = formatUtc(t - longest);
    const to = formatUtc(t + longest);
    const rows = await this.readAround(api, employeeId, from, to, ctx);
    const records = readAttendances(recordsOf('the attendance read', rows, ctx.scrub), ctx);
    const step = pairStep(records, at, p.direction, longest);
    switch (step.kind) {
      case 'already':
        return { status: true, message: `${ALREADY_RECORDED}: attendance ${step.id} has this ${step.as} (${at} UTC)` };
      case 'refuse':
        return { status: false, message: step.message };
      case 'open': {
        const ids = await api.call(
          {
            model: 'hr.attendance',
            method: 'create',
            kwargs: { vals_list: [{ employee_id: employeeId, check_in: at }] },
            positional: 'vals_list',
          },
          ctx,
        );
        const id = Array.isArray(ids) && ids.length === 1 ? ids[0] : ids;
        // Only a new record's id says it was written; anything else may or may not have been (the
        // punch goes back to the queue, and the read before the next write finds it if it was).
        if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0)
          throw notAnAnswer('the check-in', ids, ctx.scrub);
        return { status: true, message: `checked in: attendance ${id} opened at ${at} UTC` };
      }
      case 'close': {
        // A check-out that replaces Odoo's automatic one is marked as no longer Odoo's guess
        // ('manual', the mode of a record written through the API): read again, it is a punch's.
        const vals = step.replaces !== undefined ? { check_out: at, out_mode: 'manual' } : { check_out: at };
        const done = await api.call({ model: 'hr.attendance', method: 'write', ids: [step.id], kwargs: { vals } }, ctx);
        // Odoo's write answers true; anything else (an error inside a 200, a proxy's JSON) is no proof.
        if (done !== true) throw notAnAnswer('the check-out', done, ctx.scrub);
        return {
          status: true,
          message:
            step.replaces !== undefined
              ? `checked out: attendance ${step.id} closed at ${at} UTC, in place of Odoo's automatic check-out at ${step.replaces} UTC`
              : `checked out: attendance ${step.id} closed at ${at} UTC`,
        };
      }
    }
  }

  /**
   * The employee's records around a punch, with out_mode where Odoo has it (17+; an automatic
   * check-out is 18+). Odoo 16 has no out_mode and refuses a read naming it ("Invalid field
   * 'out_mode' on model 'hr.attendance'"): read again without it, and never asked for again.
   */
  private async readAround(api: OdooApi, employeeId: number, from: string, to: string, ctx: CallContext) {
    const read = (fields: string[]) =>
      api.call(
        {
          model: 'hr.attendance',
          method: 'search_read',
          kwargs: {
            domain: [
              ['employee_id', '=', employeeId],
              ['check_in', '<=', to],
              '|',
              '|',
              ['check_out', '=', false],
              ['check_out', '>=', from],
              ['check_in', '>=', from],
            ],
            fields,
            order: 'check_in asc',
          },
        },
        ctx,
      );
    if (this.noOutMode) return read(['id', 'check_in', 'check_out']);
    try {
      return await read(['id', 'check_in', 'check_out', 'out_mode']);
    } catch (e) {
      if (
        !(e instanceof OdooCallError) ||
        e.failure.kind !== 'request-failed' ||
        !/no field out_mode\b/.test(e.message)
      )
        throw e;
      this.noOutMode = true;
      return read(['id', 'check_in', 'check_out']);
    }
  }

  /**
   * An empty batch (the deliverer's probe while Odoo is unreachable, or `check`): nothing to
   * record, but the answer must say whether Odoo answers and takes the key. It was answered here
   * without a call, so `check` passed a wrong key, login, database or port. One read that needs
   * the key and records nothing: an employee's id and code field (which must exist), at most one.
   */
  private async probe(ctx: CallContext): Promise<AttendanceAnswer> {
    try {
      const api = await this.api(ctx);
      const rows = await api.call(
        {
          model: 'hr.employee',
          method: 'search_read',
          kwargs: { domain: [], fields: ['id', this.options.employeeField], limit: 1 },
        },
        ctx,
      );
      // Whatever answered must answer as Odoo: a proxy's JSON passed `check` and ended the probes.
      recordsOf('the employee read', rows, ctx.scrub);
    } catch (e) {
      return wholeBatch(failureOf(e));
    }
    return { kind: 'answered', httpStatus: 200, overall: true, results: [] };
  }

  private async api(ctx: CallContext): Promise<OdooApi> {
    if (this.chosen) return this.chosen;
    const major = await serverMajor(this.transport, ctx);
    this.chosen =
      major >= JSON2_SINCE
        ? new Json2Api(this.transport, this.options.database)
        : new JsonRpcApi(this.transport, this.options.database, this.options.login);
    return this.chosen;
  }

  private scrubberFor(token: string): (s: string) => string {
    if (this.scrubbing?.token !== token)
      this.scrubbing = { token, scrub: scrubberFor([token, ...this.http.secretValues()]) };
    return this.scrubbing.scrub;
  }
}

/** The attendances read, each with its check-in and its check-out (Odoo's `false`: still open); a record that says neither is no answer. */
function readAttendances(rows: Record<string, unknown>[], ctx: CallContext): Attendance[] {
  return rows.map((o) => {
    const out = o.check_out;
    if (typeof o.check_in !== 'string' || (typeof out !== 'string' && out !== false && out !== null))
      throw notAnAnswer('the attendance read', o, ctx.scrub);
    return {
      id: o.id as number,
      checkIn: o.check_in,
      checkOut: typeof out === 'string' ? out : null,
      ...(o.out_mode === 'auto_check_out' ? { autoCheckOut: true } : {}),
    };
  });
}

function failureOf(e: unknown): OdooFailure {
  if (e instanceof OdooCallError) return e.failure;
  return { kind: 'unknown', afterSending: true, message: e instanceof Error ? e.message : String(e) };
}

/** A failure of the whole batch, which charges no punch. */
function wholeBatch(f: OdooFailure): AttendanceAnswer {
  const status = f.kind !== 'refused' && f.httpStatus !== undefined ? { httpStatus: f.httpStatus } : {};
  switch (f.kind) {
    case 'auth':
      return { kind: 'auth', ...status, message: f.message };
    case 'request-failed':
      return { kind: 'request-failed', ...status, message: f.message };
    case 'unknown':
      return {
        kind: 'transient',
        ...status,
        message: f.message,
        afterSending: f.afterSending,
        ...(f.retryAfterMs !== undefined ? { retryAfterMs: f.retryAfterMs } : {}),
      };
    case 'refused':
      // Only a lookup of employees can fail this way for the whole batch.
      return { kind: 'transient', message: `Odoo refused the employee lookup: ${f.message}`, afterSending: false };
  }
}

/** Runs `fn` over `items`, `n` at a time. */
async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, lane));
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
