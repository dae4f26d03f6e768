import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startOdooSim } from '../../src/sim/odoo/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { everythingWritten, punchTimes, spawnDaemon, startStack } from './stack.js';

const API_KEY = 'lying-odoo-key-2f7c';
const CODES = ['6001', '6002', '6003'];

interface Row {
  biometricCode: string;
  logTime: string;
  state: string;
  attempts: number;
}

/**
 * A real `punchgate run`, fed by a terminal simulator, delivering to the Odoo simulator (JSON-RPC,
 * Odoo 17) through a server written here that answers, while `lying`, every read of employees with
 * a proxy's JSON in an HTTP 200 (`{"jsonrpc": "2.0", "id": 1, "result": {"status": "ok"}}`): no
 * punch may be refused as "no employee has this code" on it. Then the answers are Odoo's again and
 * every punch becomes one check-in (the terminal's punches, the sink's rows and Odoo's records
 * counted).
 */
describe('punchgate run against an Odoo that lies about its employees', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("a proxy's JSON for the employee read refuses no punch; Odoo's answers then record each once", async () => {
    const odoo = await startOdooSim({
      version: 17,
      apiKeys: [API_KEY],
      employees: CODES.map((c) => ({ name: `E${c}`, barcode: c })),
    });
    cleanups.push(() => odoo.stop());
    let lying = true;
    let lies = 0;
    const front = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (lying && body.includes('"hr.employee"') && body.includes('"search_read"')) {
          lies++;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { status: 'ok' } }));
          return;
        }
        const up = http.request(`${odoo.url}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        up.end(body);
      });
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => front.close(() => r())));

    const stack = await startStack({
      delivery: { batchSize: 10, probeIntervalMs: 200, retry: { baseMs: 50, maxMs: 300 } },
    });
    cleanups.push(() => stack.stop());
    writeFileSync(stack.tmp.path('odoo.key'), `${API_KEY}\n`);
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, {
        sinks: [
          {
            name: 'odoo',
            kind: 'odoo',
            baseUrl: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
            database: 'odoo',
            login: 'punchgate',
            api: 'jsonrpc',
            apiKeyFile: stack.tmp.path('odoo.key'),
            concurrency: 2,
            timeoutMs: 20_000,
          },
        ],
      });
    });
    const t = stack.terminals[0]!;
    const time = punchTimes('2026-11-26', 11);
    // Each person in (state 0), then out (state 1): the terminal's own direction.
    for (let i = 0; i < 6; i++) t.addPunch({ userId: CODES[i % 3]!, logTime: time(), state: i < 3 ? 0 : 1 });

    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const cli = (...args: string[]) => runPunchgate(['--config', stack.configPath, ...args]);
    const rows = async (): Promise<Row[]> =>
      (await cli('punches', '--sink', 'odoo', '--json', '--limit', '1000')).stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Row);

    await waitFor(async () => (await rows()).length === 6 && lies > 2, 20_000, 'the sink asking through the liar');
    // Before, each punch was refused: "no employee in Odoo has barcode ...".
    expect((await rows()).every((r) => r.state === 'pending' && r.attempts === 0)).toBe(true);
    expect(odoo.store.attendances).toHaveLength(0);
    await waitFor(() => /not what Odoo answers/.test(d.output()), 20_000, 'the lie said in the log');

    lying = false;
    await waitFor(async () => (await rows()).every((r) => r.state === 'delivered'), 30_000, 'every punch delivered');
    // Six punches of three people: one attendance each, opened and closed.
    expect(odoo.store.attendances).toHaveLength(3);
    expect(odoo.store.attendances.every((a) => a.check_out)).toBe(true);
    const all = everythingWritten(stack.tmp.path(''), d, []);
    expect(all).not.toContain(API_KEY);
  }, 120_000);
});
