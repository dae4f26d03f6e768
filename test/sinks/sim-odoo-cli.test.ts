import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildOdooSimOptions, type SimOdooCliOptions } from '../../src/cli/commands/sim-odoo.js';
import { OdooSender } from '../../src/sinks/odoo/sender.js';
import type { SinkPunch } from '../../src/sinks/types.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('pg-sim-odoo-');
afterAll(() => dir.cleanup());
const KEY = 'cli-odoo-key-8f3a2c';
const base: SimOdooCliOptions = {
  host: '127.0.0.1',
  port: '0',
  odooVersion: '19',
  database: 'odoo',
  login: 'punchgate',
  apiKey: [],
  refuse: [],
};

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

/** Starts `punchgate sim odoo ARGS` from the built CLI; resolves with its URL once it listens. */
async function startCli(args: string[]): Promise<{ url: string; out: () => string; err: () => string }> {
  const proc = spawn(
    process.execPath,
    [join(process.cwd(), 'dist/punchgate.js'), 'sim', 'odoo', '--port', '0', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child = proc;
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await waitFor(() => /listening on (http:\/\/\S+)/.test(out) || proc.exitCode !== null, 15_000, 'sim odoo listening');
  const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
  if (!url) throw new Error(`sim odoo did not start: ${err}`);
  return { url, out: () => out, err: () => err };
}

const punch = (code: string, logTime: string, n: number): SinkPunch => ({
  devicelogId: `p${n}`,
  biometricCode: code,
  logTime,
  terminal: 'gate',
  device: 'SN9',
  timezone: 'Europe/Berlin',
});

describe('punchgate sim odoo (a real process)', () => {
  it('speaks JSON-RPC as Odoo 17; a write whose answer was lost is not written twice', async () => {
    const csv = dir.path('employees.csv');
    writeFileSync(csv, 'name,barcode,pin,x_punch_code\nAnn Lee,1001,71,A1\nBob Roy,1002,,\n');
    const sim = await startCli([
      '--odoo-version',
      '17',
      '--api-key',
      KEY,
      '--employees',
      csv,
      '--drop-after-write',
      '1',
    ]);
    expect(sim.out()).toMatch(
      /^Odoo 17 simulator listening on http:\/\/127\.0\.0\.1:\d+ \(database odoo, 2 employees\)\n$/,
    );
    const sender = new OdooSender({ baseUrl: sim.url, database: 'odoo', login: 'punchgate', api: 'auto' });
    try {
      const batch = [
        punch('1001', '2026-10-24 22:00:00', 1),
        punch('1001', '2026-10-25 06:00:00', 2),
        punch('1002', '2026-10-25 07:00:00', 3),
      ];
      const first = await sender.send(batch, { token: KEY });
      expect(sender.apiKind()).toBe('jsonrpc');
      expect(first.kind).toBe('answered');
      // The dropped write was the first of one employee; the other employee went through.
      let second = await sender.send(batch, { token: KEY });
      for (let i = 0; i < 3 && second.kind === 'answered' && second.results.some((r) => r.unknown); i++)
        second = await sender.send(batch, { token: KEY });
      expect(second.kind === 'answered' && second.results.every((r) => r.status)).toBe(true);
      const res = await request(`${sim.url}/__sim/attendances`);
      const rows = (await res.body.json()) as Array<{
        employee_id: number;
        check_in: string;
        check_out: string | false;
      }>;
      expect(rows.map((r) => [r.employee_id, r.check_in, r.check_out]).sort()).toEqual([
        [1, '2026-10-24 20:00:00', '2026-10-25 05:00:00'],
        [2, '2026-10-25 06:00:00', false],
      ]);
      // JSON-2 is a 404 on Odoo 17, as on the real one.
      const j2 = await request(`${sim.url}/json/2/hr.employee/search_read`, {
        method: 'POST',
        headers: { authorization: `bearer ${KEY}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(j2.statusCode).toBe(404);
      await j2.body.text();
    } finally {
      await sender.close();
    }
    child!.kill('SIGTERM');
    await waitFor(() => child!.exitCode !== null, 10_000, 'sim odoo exit');
    expect(child!.exitCode).toBe(0);
    expect(sim.err()).toContain('Odoo simulator stopped');
    expect(sim.out() + sim.err()).not.toContain(KEY);
  });

  it('is down with --down, and refuses bad options with exit 78', async () => {
    const sim = await startCli(['--down', '--demo-employees', '2']);
    const sender = new OdooSender({ baseUrl: sim.url, database: 'odoo', api: 'json2' });
    try {
      expect(await sender.send([punch('1001', '2026-07-01 08:00:00', 1)], { token: 'sim-odoo-key' })).toMatchObject({
        kind: 'transient',
        httpStatus: 503,
      });
    } finally {
      await sender.close();
    }
    expect(buildOdooSimOptions({ ...base, withoutAttendances: true }).withoutAttendances).toBe(true);
    expect(buildOdooSimOptions(base).withoutAttendances).toBeUndefined();
    expect(() => buildOdooSimOptions({ ...base, errorRate: '2' })).toThrow(
      /--error-rate: must be a number from 0 to 1/,
    );
    const r = await runPunchgate(['sim', 'odoo', '--port', '0', '--odoo-version', 'nineteen']);
    expect(r.status).toBe(78);
    expect(r.stderr).toMatch(/--odoo-version: must be an integer from 16 to 99/);
    const csv = dir.path('bad.csv');
    writeFileSync(csv, 'name,badge\nAnn,1\n');
    expect(() => buildOdooSimOptions({ ...base, employees: csv })).toThrow(/bad\.csv:1: expected a header/);
  });
});
