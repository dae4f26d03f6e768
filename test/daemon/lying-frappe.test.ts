import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runPunchgate } from '../helpers/cli.js';
import { frappeSink } from '../helpers/frappe-sink.js';
import { waitFor } from '../helpers/wait.js';
import { everythingWritten, keys, punchTimes, spawnDaemon, startStack } from './stack.js';

const API_KEY = 'lying-frappe-key-61d0';
const API_SECRET = 'lying-frappe-secret-9a3e';

interface Row {
  biometricCode: string;
  logTime: string;
  state: string;
  attempts: number;
}

type Mode = 'firewall' | 'store-then-500' | 'revoked' | 'site';

/**
 * A real `punchgate run`, fed by a terminal simulator, delivering to a Frappe site written here
 * that lies in the shapes of frappe/frappe's report_error: a firewall in front of it answering
 * every call with its own JSON (no exc_type, no _server_messages), a call answered 500 after the
 * check-in was stored, the API key revoked (401 AuthenticationError), and a duplicate refused in
 * German with the desk link. Counted: the terminal's punches, the sink's journal rows, the site's
 * check-ins (each once).
 */
describe('punchgate run against a Frappe site that lies', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("a firewall's JSON charges no punch, a 500 after storing is not doubled, a revoked key is an auth alert", async () => {
    let mode: Mode = 'firewall';
    const checkins = new Map<string, string>();
    let calls = 0;
    const answer = (res: ServerResponse, status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const site = createServer((req: IncomingMessage, res: ServerResponse) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        calls++;
        if (mode === 'firewall') return answer(res, 400, { message: 'Request blocked by policy 7' });
        if (mode === 'revoked' || req.headers.authorization !== `token ${API_KEY}:${API_SECRET}`)
          return answer(res, 401, { exc_type: 'AuthenticationError', _server_messages: '[]' });
        if (req.method === 'GET') return answer(res, 200, { message: 'punchgate@example.com' });
        const b = JSON.parse(raw) as { employee_field_value: string; timestamp: string };
        const key = `${b.employee_field_value}@${b.timestamp}`;
        const had = checkins.get(key);
        if (had) {
          const link = `<a href="/app/Form/Employee Checkin/${had}">${had}</a>`;
          return answer(res, 417, {
            exc_type: 'ValidationError',
            _server_messages: JSON.stringify([
              JSON.stringify({
                message: `Dieser Mitarbeiter hat bereits ein Protokoll mit demselben Zeitstempel.${link}`,
              }),
            ]),
          });
        }
        const name = `EMP-CKIN-${checkins.size + 1}`;
        checkins.set(key, name);
        if (mode === 'store-then-500') {
          mode = 'site';
          return answer(res, 500, { exc_type: 'InterfaceError' });
        }
        return answer(res, 200, { message: { name, time: b.timestamp, employee: `HR-EMP-${b.employee_field_value}` } });
      });
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => site.close(() => r())));
    const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

    const stack = await startStack({
      delivery: { batchSize: 10, probeIntervalMs: 200, authRetryMs: 300, retry: { baseMs: 50, maxMs: 300 } },
    });
    cleanups.push(() => stack.stop());
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, {
        sinks: [frappeSink(stack.tmp, siteUrl, { key: API_KEY, secret: API_SECRET }, { concurrency: 2 })],
      });
    });
    const t = stack.terminals[0]!;
    const time = punchTimes('2026-11-26', 10);
    for (let i = 0; i < 8; i++) t.addPunch({ userId: String(5001 + (i % 3)), logTime: time() });

    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const cli = (...args: string[]) => runPunchgate(['--config', stack.configPath, ...args]);
    const rows = async (): Promise<Row[]> =>
      (await cli('punches', '--sink', 'erp', '--json', '--limit', '1000')).stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Row);

    // The firewall: tried, and no punch charged (before, each was refused with its words).
    await waitFor(async () => (await rows()).length === 8 && calls > 3, 20_000, 'the sink trying past the firewall');
    await waitFor(() => /Request blocked by policy 7/.test(d.output()), 20_000, "the firewall's words in the log");
    expect((await rows()).every((r) => r.state === 'pending' && r.attempts === 0)).toBe(true);

    // The site answers; its first write is answered 500 after it stored the check-in.
    mode = 'store-then-500';
    await waitFor(async () => (await rows()).every((r) => r.state === 'delivered'), 30_000, 'every punch delivered');
    expect([...checkins.keys()].sort()).toEqual(keys(t.punches()));

    // The key revoked: an auth alert; new punches wait, uncharged.
    mode = 'revoked';
    for (let i = 0; i < 3; i++) t.addPunch({ userId: '5009', logTime: time() });
    await waitFor(() => /Frappe refused the API key and secret/.test(d.output()), 20_000, 'the refused key said');
    await waitFor(async () => (await rows()).length === 11, 20_000, 'the new punches journalled');
    const waiting = (await rows()).filter((r) => r.state !== 'delivered');
    expect(waiting.every((r) => r.state === 'pending' && r.attempts === 0)).toBe(true);

    mode = 'site';
    await waitFor(async () => (await rows()).every((r) => r.state === 'delivered'), 30_000, 'all delivered');
    // Every punch exactly one check-in at the site.
    expect([...checkins.keys()].sort()).toEqual(keys(t.punches()));
    expect(checkins.size).toBe(11);
    const status = await cli('status');
    const all = everythingWritten(stack.tmp.path(''), d, [status.stdout, status.stderr]);
    expect(all).not.toContain(API_SECRET);
    expect(all).not.toContain(API_KEY);
  }, 120_000);
});
