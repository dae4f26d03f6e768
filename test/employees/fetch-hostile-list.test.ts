/**
 * `employees fetch` against an HRMS whose list is huge or odd: 200,000 employees (the token
 * scrubber and the table once overflowed the call stack: "Maximum call stack size exceeded",
 * exit 1, for sync-users --from-hrms too), a field of its own on
 * every record (a column each: thousands of columns, minutes and gigabytes), a name of 5,000
 * characters (every row padded to it), entries that are not employees. The table stays a table.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchEmployees } from '../../src/employees/commands.js';
import { MAX_RESPONSE_BYTES } from '../../src/hrms/http.js';
import { HrmsUsers } from '../../src/hrms/users.js';
import { Secrets } from '../../src/util/secrets.js';
import { Sink } from './helpers.js';

let server: Server | null = null;
let client: HrmsUsers | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = null;
});

const TOKEN = 'tok-9f2c41d7e5';

async function fetchFrom(list: unknown[]): Promise<{ code: number; out: string; err: string }> {
  // As the CLI has it: the token is a known secret, and every answer is scrubbed of it.
  const secrets = new Secrets();
  secrets.add(TOKEN);
  const body = JSON.stringify({ status: true, data: list });
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return runFetch(clientOf(server, 20_000, secrets));
}

/** The employee client of the CLI against `server`, with its bounds. */
function clientOf(srv: Server, timeoutMs: number, secrets: Secrets): HrmsUsers {
  return new HrmsUsers({
    hrms: {
      baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
      userPath: '/api.php/system/hrms/updateUser',
      employeeFetch: {
        path: '/fetchEmployees',
        method: 'GET',
        params: { status: 's', department: 'd', designation: 'g' },
      },
      timeoutMs,
      connectTimeoutMs: Math.min(2000, timeoutMs),
    },
    token: { get: () => TOKEN },
    secrets,
  });
}

/** `employees fetch` through `c` (kept for afterEach to close). */
async function runFetch(c: HrmsUsers): Promise<{ code: number; out: string; err: string }> {
  client = c;
  const out = new Sink();
  const err = new Sink();
  const code = await fetchEmployees({}, {}, { client: c, out, err, identifyBy: 'username' });
  return { code, out: out.text, err: err.text };
}

describe('employees fetch with a huge or odd list', () => {
  it('200,000 employees make a table, not a stack overflow (in the table, nor in the token scrubber)', async () => {
    const run = await fetchFrom(
      Array.from({ length: 200_000 }, (_, i) => ({ username: `u${i}`, biometriccode: i + 1 })),
    );
    expect(run.err).toBe('200000 employees\n');
    expect(run.code).toBe(0);
    expect(run.out.split('\n')).toHaveLength(200_002);
  }, 60_000);

  it('a field of its own on every record: at most 12 columns, the rest named under the table', async () => {
    const run = await fetchFrom(
      Array.from({ length: 3000 }, (_, i) => ({
        username: `u${i}`,
        name: `N ${i}`,
        biometriccode: i + 1,
        [`x${i}`]: 1,
      })),
    );
    expect(run.code).toBe(0);
    const lines = run.out.trimEnd().split('\n');
    expect(lines[0]!.split(/\s{2,}/)).toHaveLength(12);
    expect(lines[0]).toMatch(/^username\s+name\s+biometriccode\s+x0\s/);
    expect(lines.at(-1)).toBe('(2991 more fields not shown: --json shows every field)');
  });

  it('a 5,000-character name does not pad every row, and entries that are not employees are named', async () => {
    const run = await fetchFrom([
      { username: 'long', name: 'x'.repeat(5000) },
      { username: 'ann', name: 'Ann' },
      [{ username: 'in-a-list' }],
      null,
    ]);
    expect(run.code).toBe(0);
    const lines = run.out.trimEnd().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(100);
    expect(lines[1]).toContain(`${'x'.repeat(57)}...`);
    expect(run.err).toContain(
      "punchgate: 2 entries of the HRMS's list are not employee records and are not shown: 3 (a list), 4 (null)",
    );
  });

  it('a list larger than punchgate reads is said as such, with what to do: not "cannot reach the HRMS", not "try again later"', async () => {
    const run = await fetchFrom([{ username: 'big', name: 'N'.repeat(MAX_RESPONSE_BYTES) }]);
    // The HRMS was reached and answered: running again gives the same answer (exit 1, not 75).
    expect(run.code).toBe(1);
    expect(run.err).not.toContain('cannot reach');
    expect(run.err).not.toContain('network route');
    expect(run.err).toContain('HTTP 200');
    expect(run.err).toContain('more than 32 MiB');
    expect(run.err).toContain('terminalUsers.filter');
  }, 30_000);

  it('an HRMS slower than hrms.timeoutMs: said as slow, with the setting to raise; not "cannot reach", not "check the network route"', async () => {
    server = createServer((req) => req.resume());
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const run = await runFetch(clientOf(server, 150, new Secrets()));
    server.closeAllConnections();
    expect(run.code).toBe(75);
    expect(run.err).not.toContain('cannot reach');
    expect(run.err).not.toContain('network route');
    expect(run.err).toContain('did not answer within');
    expect(run.err).toContain('raise hrms.timeoutMs');
  });
});
