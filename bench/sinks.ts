/**
 * `sinks` (issue 32): punches per second delivered to each simulated server a sink speaks to
 * (Frappe HR, Odoo through JSON-2, Odoo through JSON-RPC) through the real path: a journal, the
 * Deliverer (claim, send, classify, settle each punch) and the sink's sender with its default 4
 * calls in flight. Each is set next to a bare request loop in the same run: the same calls to the
 * same server on 4 connections, 4 in flight, the answer read and only its HTTP status looked at
 * (for Odoo, the open record in the search answer decides create or write, as it must). The bare
 * loop runs before and after ours, the faster kept, so the order never favours us. Target: ours
 * at least 0.5x. A last row sets the Frappe sink next to itself with one call at a time, the
 * Frappe sync tool's way (target: at least 3x).
 *
 * The simulators (`punchgate sim frappe`, `punchgate sim odoo`) run in their own processes and
 * answer every call after the same fixed latency (BENCH_SINK_LATENCY_MS, default 5 ms, as a real
 * server's insert over a LAN takes at least that), for both sides alike: on loopback with no
 * latency the figure would measure this machine's shared cores, not the sink.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool, request } from 'undici';
import { checkinUrl } from '../src/sinks/frappe/options.js';
import { FrappeSender } from '../src/sinks/frappe/sender.js';
import { OdooSender } from '../src/sinks/odoo/sender.js';
import { syntheticPunch } from './lib/punches.js';
import { scaled } from './lib/scale.js';
import { scratchDir } from './lib/setup.js';
import { startSimProcess } from './lib/sim-process.js';
import { drainThroughSink, sinkJournal } from './lib/sink-drain.js';
import { fmt, log, ratioRow, type BenchRow } from './lib/table.js';
import { collectGarbage, nowMs, rate } from './lib/timing.js';

const CONCURRENCY = 4;
const BATCH = 200;
const EMPLOYEES = 500;
const FRAPPE_TOKEN = 'benchkey0001:benchsecret0001';
const ODOO_KEY = 'bench-odoo-key';
const ODOO_DB = 'bench';
const ODOO_LOGIN = 'punchgate';
const LONGEST_SHIFT_MS = 16 * 3600_000;

/** Runs `fn` for each of `n` items, `CONCURRENCY` at a time (the bare loops' lanes). */
async function lanes(n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

/** A side's runs take consecutive ranges of the synthetic log: no punch is sent twice. */
class Ranges {
  private next = 0;
  take(n: number): number {
    const from = this.next;
    this.next += n;
    return from;
  }
}

// ---- Frappe HR

async function frappeBare(url: string, from: number, n: number): Promise<number> {
  const target = new URL(checkinUrl({ baseUrl: url, method: 'hrms' }));
  const pool = new Pool(target.origin, { connections: CONCURRENCY });
  try {
    const t0 = nowMs();
    await lanes(n, async (k) => {
      const p = syntheticPunch(from + k);
      const res = await pool.request({
        method: 'POST',
        path: target.pathname,
        headers: {
          authorization: `token ${FRAPPE_TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({
          employee_field_value: p.biometricCode,
          timestamp: p.logTime,
          device_id: p.terminal,
          employee_fieldname: 'attendance_device_id',
        }),
      });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`Frappe bare loop: HTTP ${res.statusCode}`);
    });
    return rate(n, nowMs() - t0);
  } finally {
    await pool.close();
  }
}

function frappeSender(url: string, concurrency: number): FrappeSender {
  return new FrappeSender(
    { baseUrl: url, method: 'hrms', employeeFieldname: 'attendance_device_id', concurrency, timeoutMs: 30_000 },
    { env: {} },
  );
}

// ---- Odoo

type OdooApiKind = 'json2' | 'jsonrpc';

/** The bare calls of one API: `call(model, method, ids, kwargs, positional)` returning Odoo's result. */
function odooBareApi(pool: Pool, api: OdooApiKind, uid: number) {
  let id = 1;
  return async (
    model: string,
    method: string,
    ids: number[] | undefined,
    kwargs: Record<string, unknown>,
    positional?: string,
  ): Promise<unknown> => {
    let path: string;
    let body: unknown;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (api === 'json2') {
      path = `/json/2/${model}/${method}`;
      headers.authorization = `bearer ${ODOO_KEY}`;
      headers['x-odoo-database'] = ODOO_DB;
      body = { ...(ids ? { ids } : {}), ...kwargs };
    } else {
      path = '/jsonrpc';
      const args: unknown[] = ids ? [ids] : [];
      const kw = { ...kwargs };
      if (positional) {
        args.push(kw[positional]);
        delete kw[positional];
      }
      body = {
        jsonrpc: '2.0',
        method: 'call',
        params: { service: 'object', method: 'execute_kw', args: [ODOO_DB, uid, ODOO_KEY, model, method, args, kw] },
        id: id++,
      };
    }
    const res = await pool.request({ method: 'POST', path, headers, body: JSON.stringify(body) });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`Odoo bare loop: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
    const value = JSON.parse(text) as { result?: unknown; error?: unknown };
    if (api === 'json2') return value;
    if (value.error) throw new Error(`Odoo bare loop: ${JSON.stringify(value.error).slice(0, 200)}`);
    return value.result;
  };
}

/** JSON-RPC's uid (authenticate), once per loop, as the sender keeps it per key. */
async function odooUid(pool: Pool): Promise<number> {
  const res = await pool.request({
    method: 'POST',
    path: '/jsonrpc',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      method: 'call',
      params: { service: 'common', method: 'authenticate', args: [ODOO_DB, ODOO_LOGIN, ODOO_KEY, {}] },
      id: 0,
    }),
  });
  const uid = ((await res.body.json()) as { result?: unknown }).result;
  if (typeof uid !== 'number') throw new Error(`Odoo bare loop: authenticate answered ${JSON.stringify(uid)}`);
  return uid;
}

/**
 * The sender's calls without the sender: the employees looked up once (the sender caches them),
 * then per punch the employee's records around its time and a create, or a write of check_out
 * when one is open.
 */
async function odooBare(url: string, api: OdooApiKind, from: number, n: number): Promise<number> {
  const pool = new Pool(new URL(url).origin, { connections: CONCURRENCY });
  try {
    const t0 = nowMs();
    const call = odooBareApi(pool, api, api === 'jsonrpc' ? await odooUid(pool) : 0);
    const codes = Array.from({ length: EMPLOYEES }, (_, i) => String(1000 + i));
    const found = (await call('hr.employee', 'search_read', undefined, {
      domain: [['barcode', 'in', codes]],
      fields: ['id', 'name', 'barcode'],
    })) as Array<{ id: number; barcode: string }>;
    const ids = new Map(found.map((e) => [e.barcode, e.id]));
    await lanes(n, async (k) => {
      const p = syntheticPunch(from + k);
      const employee = ids.get(p.biometricCode);
      if (employee === undefined) throw new Error(`Odoo bare loop: no employee ${p.biometricCode}`);
      const t = Date.parse(`${p.logTime.replace(' ', 'T')}Z`);
      const fmtUtc = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
      const rows = (await call('hr.attendance', 'search_read', undefined, {
        domain: [
          ['employee_id', '=', employee],
          ['check_in', '<=', fmtUtc(t + LONGEST_SHIFT_MS)],
          '|',
          '|',
          ['check_out', '=', false],
          ['check_out', '>=', fmtUtc(t - LONGEST_SHIFT_MS)],
          ['check_in', '>=', fmtUtc(t - LONGEST_SHIFT_MS)],
        ],
        fields: ['id', 'check_in', 'check_out'],
        order: 'check_in asc',
      })) as Array<{ id: number; check_out: string | false }>;
      const open = rows.find((r) => r.check_out === false);
      if (open) await call('hr.attendance', 'write', [open.id], { vals: { check_out: p.logTime } });
      else
        await call(
          'hr.attendance',
          'create',
          undefined,
          { vals_list: [{ employee_id: employee, check_in: p.logTime }] },
          'vals_list',
        );
    });
    return rate(n, nowMs() - t0);
  } finally {
    await pool.close();
  }
}

function odooSender(url: string, api: OdooApiKind): OdooSender {
  return new OdooSender(
    { baseUrl: url, database: ODOO_DB, api, login: ODOO_LOGIN, concurrency: CONCURRENCY },
    { env: {} },
  );
}

// ---- the benchmark

/** API requests the simulator at `url` has answered so far (its /__sim/stats, admin requests not counted). */
async function simRequests(url: string): Promise<number> {
  const res = await request(`${url.replace(/\/+$/, '')}/__sim/stats`);
  const stats = (await res.body.json()) as { requests?: unknown };
  if (typeof stats.requests !== 'number') throw new Error(`${url}: /__sim/stats has no request count`);
  return stats.requests;
}

/** Runs `fn` and counts the requests the simulator answered meanwhile. */
async function counted(url: string, fn: () => Promise<number>): Promise<{ rate: number; requests: number }> {
  const before = await simRequests(url);
  const r = await fn();
  return { rate: r, requests: (await simRequests(url)) - before };
}

interface Side {
  name: string;
  url: string;
  ours: (from: number, n: number, name: string) => Promise<number>;
  bare: (from: number, n: number) => Promise<number>;
}

export async function benchSinks(): Promise<BenchRow[]> {
  const latency = Number(process.env.BENCH_SINK_LATENCY_MS ?? 5);
  if (!Number.isFinite(latency) || latency < 0) throw new Error('BENCH_SINK_LATENCY_MS must be a number >= 0');
  const n = scaled(4000, { min: 400, step: BATCH });
  const scratch = scratchDir('sinks');
  const ranges = new Ranges();
  const rows: BenchRow[] = [];
  const note = `${fmt(n)} punches, ${CONCURRENCY} in flight, each simulator call answered after ${latency} ms (both sides)`;
  log(`sinks: ${note}; simulators in their own processes; batches of ${BATCH} from a journal`);

  const frappeEmployees = join(scratch.dir, 'frappe-employees.csv');
  const codes = Array.from({ length: EMPLOYEES }, (_, i) => 1000 + i);
  writeFileSync(frappeEmployees, `attendance_device_id,employee_name\n${codes.map((c) => `${c},P${c}`).join('\n')}\n`);
  const odooEmployees = join(scratch.dir, 'odoo-employees.csv');
  writeFileSync(odooEmployees, `name,barcode\n${codes.map((c) => `P${c},${c}`).join('\n')}\n`);

  const frappe = await startSimProcess([
    'frappe',
    '--port',
    '0',
    '--key',
    FRAPPE_TOKEN,
    '--employees',
    frappeEmployees,
    '--latency',
    String(latency),
  ]);
  const odoo = await startSimProcess([
    'odoo',
    '--port',
    '0',
    '--odoo-version',
    '19',
    '--database',
    ODOO_DB,
    '--login',
    ODOO_LOGIN,
    '--api-key',
    ODOO_KEY,
    '--employees',
    odooEmployees,
    '--latency',
    String(latency),
  ]);
  const drain = (sender: FrappeSender | OdooSender, token: string) => (from: number, count: number, name: string) =>
    drainThroughSink(sinkJournal(scratch.dir, `${name}.db`, from, count), sender, token, BATCH);
  const sides: Side[] = [
    {
      name: 'Frappe',
      url: frappe.url,
      ours: (from, count, name) => drain(frappeSender(frappe.url, CONCURRENCY), FRAPPE_TOKEN)(from, count, name),
      bare: (from, count) => frappeBare(frappe.url, from, count),
    },
    {
      name: 'Odoo JSON-2',
      url: odoo.url,
      ours: (from, count, name) => drain(odooSender(odoo.url, 'json2'), ODOO_KEY)(from, count, name),
      bare: (from, count) => odooBare(odoo.url, 'json2', from, count),
    },
    {
      name: 'Odoo JSON-RPC',
      url: odoo.url,
      ours: (from, count, name) => drain(odooSender(odoo.url, 'jsonrpc'), ODOO_KEY)(from, count, name),
      bare: (from, count) => odooBare(odoo.url, 'jsonrpc', from, count),
    },
  ];
  try {
    let frappeFour = NaN;
    for (const [k, side] of sides.entries()) {
      const tag = `side${k}`;
      // Untimed warm-up of both (JIT, connections, the sender's employee cache).
      await side.bare(ranges.take(BATCH), BATCH);
      await side.ours(ranges.take(BATCH), BATCH, `${tag}-warm`);
      collectGarbage();
      const before = await counted(side.url, () => side.bare(ranges.take(n), n));
      collectGarbage();
      const sink = await counted(side.url, () => side.ours(ranges.take(n), n, tag));
      collectGarbage();
      const after = await counted(side.url, () => side.bare(ranges.take(n), n));
      const ours = sink.rate;
      const bare = Math.max(before.rate, after.rate);
      // The simulator's own count of the calls: the two sides must have asked it the same.
      log(
        `  ${side.name}: sink ${fmt(ours)}/s (${fmt(sink.requests)} requests), bare loop ${fmt(before.rate)}/s before and ` +
          `${fmt(after.rate)}/s after (${fmt(before.requests)} and ${fmt(after.requests)} requests; the faster kept)`,
      );
      if (k === 0) frappeFour = ours;
      rows.push(
        ratioRow({
          bench: 'sinks',
          metric: `${side.name} sink vs bare loop`,
          unit: 'punches/s',
          ours,
          baseline: bare,
          minRatio: 0.5,
          note,
        }),
      );
    }
    // The Frappe tool's way: one call at a time (fewer punches: it is the slow side).
    const m = Math.max(BATCH, Math.round(n / 4 / BATCH) * BATCH);
    collectGarbage();
    const one = await drainThroughSink(
      sinkJournal(scratch.dir, 'frappe-one.db', ranges.take(m), m),
      frappeSender(frappe.url, 1),
      FRAPPE_TOKEN,
      BATCH,
    );
    log(`  Frappe, one call at a time: ${fmt(one)}/s (${fmt(m)} punches)`);
    rows.push(
      ratioRow({
        bench: 'sinks',
        metric: `Frappe sink, ${CONCURRENCY} in flight vs 1 at a time`,
        unit: 'punches/s',
        ours: frappeFour,
        baseline: one,
        minRatio: 3,
        ratioAs: 'times',
        note: `1 at a time over ${fmt(m)} punches; simulator answers after ${latency} ms`,
      }),
    );
    return rows;
  } finally {
    await Promise.allSettled([frappe.stop(), odoo.stop()]);
    scratch.remove();
  }
}
