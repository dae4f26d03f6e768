import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttendanceAnswer } from '../../src/hrms/answer.js';
import { OdooSender } from '../../src/sinks/odoo/sender.js';
import type { SinkPunch } from '../../src/sinks/types.js';
import { DEFAULT_SIM_KEY, startOdooSim, type OdooSim } from '../../src/sim/odoo/index.js';

/**
 * A server in front of the Odoo simulator that answers one model method with a lie in an HTTP 200
 * (JSON-2's path): an error envelope as JSON-RPC has it, a proxy's JSON, a bare value that is no
 * id. The punch must never be counted as delivered on such an answer (it goes back to the queue,
 * and the next try's read finds what was written), nor refused on a misread of the records.
 */
let open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of open.reverse()) await f();
  open = [];
});

async function liar(sim: OdooSim, method: string, lie: unknown, model = 'hr.attendance') {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url === `/json/2/${model}/${method}`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(lie));
        return;
      }
      const up = http.request(`${sim.url}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const punch = (logTime: string, direction: 'in' | 'out'): SinkPunch => ({
  devicelogId: logTime,
  biometricCode: '1001',
  logTime,
  terminal: 'gate',
  device: '',
  timezone: 'UTC',
  direction,
});

const ENVELOPE = {
  jsonrpc: '2.0',
  id: null,
  error: { code: 200, message: 'Odoo Server Error', data: { name: 'odoo.exceptions.ValidationError', message: 'no' } },
};

describe('Odoo answers that are not what Odoo answers (HTTP 200)', () => {
  it.each([
    ['write', 'an error envelope', ENVELOPE],
    ['write', 'false', false],
    ['create', 'an error envelope', ENVELOPE],
    ['create', 'an empty list', []],
    ['create', 'a proxy JSON', { status: 'ok' }],
    ['search_read', 'an object instead of the records', { result: [] }],
  ])('%s answered with %s: not delivered, not refused, tried again', async (method, _what, lie) => {
    const sim = await startOdooSim({ employees: [{ name: 'Ann Lee', barcode: '1001' }] });
    open.push(() => sim.stop());
    const sender = new OdooSender({ baseUrl: await liar(sim, method, lie), database: 'odoo', api: 'json2' });
    open.push(() => sender.close());
    // A record to close for the check-out (made straight at the simulator).
    const direct = new OdooSender({ baseUrl: sim.url, database: 'odoo', api: 'json2' });
    open.push(() => direct.close());
    const first = await direct.send([punch('2026-11-02 08:00:00', 'in')], { token: DEFAULT_SIM_KEY });
    expect(first.kind === 'answered' && first.results[0]!.status).toBe(true);

    const p = method === 'create' ? punch('2026-11-03 08:00:00', 'in') : punch('2026-11-02 17:00:00', 'out');
    if (method === 'create') await direct.send([punch('2026-11-02 17:00:00', 'out')], { token: DEFAULT_SIM_KEY }); // nothing open now
    const a: AttendanceAnswer = await sender.send([p], { token: DEFAULT_SIM_KEY });
    const r = a.kind === 'answered' ? a.results[0]! : undefined;
    // Never delivered, never refused: the batch (of one) fails as transient, or the punch is unknown.
    expect(a.kind === 'transient' || (r?.unknown === true && !r.status), JSON.stringify(a)).toBe(true);
    // Sent again to the real Odoo, it goes in once.
    const again = await direct.send([p], { token: DEFAULT_SIM_KEY });
    expect(again.kind === 'answered' && again.results[0]!.status, JSON.stringify(again)).toBe(true);
  });
});

describe("Odoo's reads answered with something that is not their records (HTTP 200)", () => {
  it.each([
    ['a proxy JSON', { status: 'ok' }],
    ['null', null],
    ['records whose id is text', [{ id: '7', name: 'Ann Lee', barcode: '1001' }]],
  ])('the employee lookup answered with %s: no punch refused as unknown to Odoo, tried again', async (_what, lie) => {
    const sim = await startOdooSim({ employees: [{ name: 'Ann Lee', barcode: '1001' }] });
    open.push(() => sim.stop());
    const sender = new OdooSender({
      baseUrl: await liar(sim, 'search_read', lie, 'hr.employee'),
      database: 'odoo',
      api: 'json2',
    });
    open.push(() => sender.close());
    const a = await sender.send([punch('2026-11-02 08:00:00', 'in')], { token: DEFAULT_SIM_KEY });
    // Before, the lie read as "no employee has this code": the punch refused, on its way to dead.
    expect(a.kind, JSON.stringify(a)).toBe('transient');
    expect(a.kind === 'transient' && a.message).toMatch(/not what Odoo answers/);
  });

  it('an attendance read whose records cannot be read is no proof that nothing is open: not refused, tried again', async () => {
    const sim = await startOdooSim({ employees: [{ name: 'Ann Lee', barcode: '1001' }] });
    open.push(() => sim.stop());
    const direct = new OdooSender({ baseUrl: sim.url, database: 'odoo', api: 'json2' });
    open.push(() => direct.close());
    const first = await direct.send([punch('2026-11-02 08:00:00', 'in')], { token: DEFAULT_SIM_KEY });
    expect(first.kind === 'answered' && first.results[0]!.status).toBe(true);
    // The open record, its id as text: skipped, the check-out found "nothing open" and was refused.
    const sender = new OdooSender({
      baseUrl: await liar(sim, 'search_read', [{ id: '1', check_in: '2026-11-02 08:00:00', check_out: false }]),
      database: 'odoo',
      api: 'json2',
    });
    open.push(() => sender.close());
    const a = await sender.send([punch('2026-11-02 17:00:00', 'out')], { token: DEFAULT_SIM_KEY });
    const r = a.kind === 'answered' ? a.results[0]! : undefined;
    expect(a.kind === 'transient' || (r?.unknown === true && !r.status), JSON.stringify(a)).toBe(true);
  });

  it('the empty batch of check and the probes answered with a proxy JSON: not taken as Odoo taking the key', async () => {
    const sim = await startOdooSim({ employees: [{ name: 'Ann Lee', barcode: '1001' }] });
    open.push(() => sim.stop());
    const sender = new OdooSender({
      baseUrl: await liar(sim, 'search_read', { status: 'ok' }, 'hr.employee'),
      database: 'odoo',
      api: 'json2',
    });
    open.push(() => sender.close());
    const a = await sender.send([], { token: DEFAULT_SIM_KEY });
    expect(a.kind, JSON.stringify(a)).not.toBe('answered');
  });
});

describe('JSON-RPC answers without a result or an error (HTTP 200)', () => {
  it("a proxy's JSON to authenticate is no refusal of the login and key: tried again, no auth alert", async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, status: 'queued' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    open.push(() => new Promise<void>((r) => server.close(() => r())));
    const sender = new OdooSender({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      database: 'odoo',
      login: 'punchgate',
      api: 'jsonrpc',
    });
    open.push(() => sender.close());
    const a = await sender.send([punch('2026-11-02 08:00:00', 'in')], { token: DEFAULT_SIM_KEY });
    expect(a.kind, JSON.stringify(a)).toBe('transient');
    expect(a.kind === 'transient' && a.message).toMatch(/not what Odoo answers/);
  });
});
