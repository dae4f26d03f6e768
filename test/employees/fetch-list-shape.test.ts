import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerEmployees } from '../../src/cli/commands/employees.js';
import { fetchRoster } from '../../src/roster/load-roster.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, writeConfig } from './helpers.js';

/**
 * A fetch answer whose list sits under a key the contract does not use is a settings problem
 * (exit 78, naming the key found and where the list was expected), not a temporary one (75):
 * asking again gets the same answer. A 5xx stays temporary.
 */
describe('employees fetch: a list under another key', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: Server;
  let reply: { status: number; body: string };
  let err: string;

  beforeEach(async () => {
    tmp = tempDir('punchgate-fetch-shape-');
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    vi.stubEnv('PUNCHGATE_HRMS_TOKEN', '');
    vi.stubEnv('CREDENTIALS_DIRECTORY', '');
    writeFileSync(tmp.path('token'), `${TOKEN}\n`);
    writeConfig(tmp.path('punchgate.yaml'), {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      tokenFile: tmp.path('token'),
      dir: tmp.dir,
    });
    err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    process.exitCode = undefined;
    await new Promise((r) => server.close(r));
    tmp.cleanup();
  });

  async function fetchExit(): Promise<number> {
    process.exitCode = undefined;
    const p = new Command('punchgate').option('-c, --config <file>').option('--pretty').option('--log-level <level>');
    registerEmployees(p.exitOverride());
    await p.parseAsync(['node', 'punchgate', '-c', tmp.path('punchgate.yaml'), 'employees', 'fetch']);
    return Number(process.exitCode ?? 0);
  }

  it('a top-level "employees" list: exit 78 naming the key and where it was expected', async () => {
    reply = { status: 200, body: '{"status":true,"message":"ok","employees":[{"username":"a"},{"username":"b"}]}' };
    expect(await fetchExit()).toBe(78);
    expect(err).toContain('a list of 2 under the top-level key "employees"');
    expect(err).toContain('expected it in data itself, or data.employees');
    expect(err).toContain('hrms.employeeFetch');
  });

  it('a list under an unknown key of data, and no list at all, are the same settings problem', async () => {
    reply = { status: 200, body: '{"status":true,"data":{"result":[{"username":"a"}]}}' };
    expect(await fetchExit()).toBe(78);
    expect(err).toContain('a list of 1 under data.result');
    reply = { status: 200, body: '{"status":true,"message":"ok"}' };
    expect(await fetchExit()).toBe(78);
    expect(err).toContain('found no data and no list (top-level keys: status, message)');
  });

  it('a 5xx stays temporary (75)', async () => {
    reply = { status: 503, body: '{"status":false,"message":"busy"}' };
    expect(await fetchExit()).toBe(75);
  });

  it('the roster fetch (--from-hrms) ends 78 too', async () => {
    const answer = {
      ok: false,
      kind: 'contract' as const,
      message: 'the HRMS fetch answer holds no list of employees where the contract puts it',
      records: [],
      unreadable: [],
    };
    await expect(fetchRoster({ fetch: () => Promise.resolve(answer) }, { filter: {} } as never)).rejects.toMatchObject({
      exitCode: 78,
    });
  });
});
