import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsUsers, type UserAnswer } from '../../src/hrms/users.js';
import { Secrets } from '../../src/util/secrets.js';
import { startRig } from './helpers.js';

const SECRET = 'client-secret-token-9d2f';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A stand-in HRMS that answers each request with the next canned reply and records what it got. */
async function cannedHrms(
  replies: Array<{ status: number; body: string; delayMs?: number }>,
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const r = replies.shift() ?? { status: 500, body: '' };
      setTimeout(() => res.writeHead(r.status, { 'content-type': 'application/json' }).end(r.body), r.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix`, seen, server };
}

function client(
  baseUrl: string,
  opts: { method?: 'GET' | 'POST'; timeoutMs?: number; connectTimeoutMs?: number } = {},
): HrmsUsers {
  const secrets = new Secrets();
  secrets.add(SECRET);
  return new HrmsUsers({
    hrms: {
      baseUrl,
      userPath: '/api.php/system/acme/updateUser',
      employeeFetch: {
        path: '/api.php/system/acme/staff',
        method: opts.method ?? 'GET',
        params: { status: 'state', department: 'dept', designation: 'desig' },
      },
      timeoutMs: opts.timeoutMs ?? 5000,
      // 5 s (was 1 s): the server is in this process, and a loaded CI box holding it past the connect
      // timeout failed a request by chance (the connect timer fires before the connection is seen).
      connectTimeoutMs: opts.connectTimeoutMs ?? 5000,
    },
    token: { get: () => SECRET },
    secrets,
  });
}

describe('HrmsUsers', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  async function against(
    replies: Array<{ status: number; body: string; delayMs?: number }>,
    opts?: Parameters<typeof client>[1],
  ) {
    const hrms = await cannedHrms(replies);
    const c = client(hrms.url, opts);
    cleanup.push(
      () => c.close(),
      () => new Promise((r) => hrms.server.close(r)),
    );
    return { ...hrms, c };
  }

  it('POSTs JSON with the bearer token to base URL + userPath, keeping the base path prefix', async () => {
    const { c, seen } = await against([
      { status: 200, body: '{"status":true,"message":"Employee created","data":{"id":7}}' },
    ]);
    const a = await c.send({ username: 'u', block: 0, Role: '' });
    expect(a).toEqual({
      ok: true,
      kind: 'ok',
      httpStatus: 200,
      message: 'Employee created',
      data: { id: 7 },
      raw: '{"status":true,"message":"Employee created","data":{"id":7}}',
    });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/prefix/api.php/system/acme/updateUser',
      body: '{"username":"u","block":0,"Role":""}',
    });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('classifies refusals by HTTP status and message', async () => {
    const { c } = await against([
      { status: 200, body: '{"status":false,"message":"Bearer token is not correct"}' },
      { status: 403, body: 'Forbidden' },
      { status: 200, body: '{"status":false,"message":"Employee not found: x"}' },
      { status: 200, body: '{"Status":false,"message":"Validation failed: dob"}' },
      { status: 200, body: '{"status":false,"message":"Something else went wrong"}' },
      { status: 502, body: '{"status":false,"message":"upstream"}' },
      { status: 429, body: '' },
      { status: 200, body: '{"message":"who knows"}' },
    ]);
    const kinds: Array<[UserAnswer['kind'], string]> = [];
    for (let i = 0; i < 8; i++) {
      const a = await c.send({ username: 'x' });
      kinds.push([a.kind, a.message]);
    }
    expect(kinds).toEqual([
      ['auth', 'Bearer token is not correct'],
      ['auth', 'HTTP 403: the token was refused'],
      ['not-found', 'Employee not found: x'],
      ['validation', 'Validation failed: dob'],
      ['refused', 'Something else went wrong'],
      ['transient', 'upstream'],
      ['transient', 'the HRMS answered HTTP 429 with a body that is not JSON'],
      ['transient', 'who knows'],
    ]);
  });

  it('survives PHP notices before the JSON and takes a bare list as fetch data', async () => {
    const { c } = await against([
      { status: 200, body: '<br /><b>Notice</b>: Undefined index<br />\n{"status":true,"message":"Employee updated"}' },
      { status: 200, body: '[{"username":"a"},{"username":"b"},"junk"]' },
    ]);
    expect(await c.send({ username: 'a' })).toMatchObject({ ok: true, message: 'Employee updated' });
    expect((await c.fetch()).records).toEqual([{ username: 'a' }, { username: 'b' }]);
  });

  it('fetch sends the configured parameter names by GET query or POST JSON body, only for the filters given', async () => {
    const get = await against([{ status: 200, body: '{"status":true,"data":[]}' }]);
    await get.c.fetch({ status: 'active', designation: 'Lead Engineer' });
    expect(get.seen[0]).toMatchObject({
      method: 'GET',
      url: '/prefix/api.php/system/acme/staff?state=active&desig=Lead+Engineer',
      body: '',
    });
    const post = await against([{ status: 200, body: '{"status":true,"data":{"employees":[{"username":"z"}]}}' }], {
      method: 'POST',
    });
    expect((await post.c.fetch({ department: 'Ops' })).records).toEqual([{ username: 'z' }]);
    expect(post.seen[0]).toMatchObject({
      method: 'POST',
      url: '/prefix/api.php/system/acme/staff',
      body: '{"dept":"Ops"}',
    });
    expect(post.seen[0]!.headers['content-type']).toBe('application/json');
  });

  it('a fetch answer without a list is not taken as "no employees"', async () => {
    const { c } = await against([{ status: 200, body: '{"status":true,"message":"ok"}' }]);
    expect(await c.fetch()).toMatchObject({
      ok: false,
      // Asking again gets the same answer: a settings problem (exit 78), not a temporary one.
      kind: 'contract',
      message: expect.stringContaining('the HRMS fetch answer holds no list of employees') as unknown,
      records: [],
    });
  });

  it('a slow HRMS is a transient failure at timeoutMs', async () => {
    const { c } = await against([{ status: 200, body: '{"status":true}', delayMs: 1500 }], {
      // The deadline is connect + answer timeouts: 1.3 s, under the 1.5 s answer.
      timeoutMs: 300,
      connectTimeoutMs: 1000,
    });
    const a = await c.send({ username: 'x' });
    expect(a.kind).toBe('transient');
    expect(a.message).toMatch(/timeout/i);
  });

  it('never puts the token in an answer, even when the HRMS echoes it back', async () => {
    const { c } = await against([
      {
        status: 200,
        body: `{"status":false,"message":"Bearer token ${SECRET} is not correct","data":{"token":"${SECRET}"}}`,
      },
    ]);
    const a = await c.send({ username: 'x' });
    expect(a.kind).toBe('auth');
    expect(JSON.stringify(a)).not.toContain(SECRET);
    expect(a.message).toBe('Bearer token [REDACTED] is not correct');
    expect(a.data).toEqual({ token: '[REDACTED]' });
  });

  it('a closed port is a transient failure naming the address, not the token', async () => {
    const hrms = await cannedHrms([]);
    await new Promise((r) => hrms.server.close(r));
    const c = client(hrms.url);
    cleanup.push(() => c.close());
    const a = await c.send({ username: 'x' });
    expect(a).toEqual({
      ok: false,
      kind: 'transient',
      message: expect.stringMatching(
        /^cannot reach the HRMS at http:\/\/127\.0\.0\.1:\d+\/prefix\/api\.php\/system\/acme\/updateUser: .*ECONNREFUSED/,
      ),
      fix: 'check hrms.baseUrl, the network route and firewall or proxy between this box and the HRMS, and that the HRMS is up',
    });
  });

  it('fetch by POST works against the simulator', async () => {
    const rig = await startRig(
      {
        employees: [
          { username: 'a', name: 'A', email: 'a@example.com', department: 'Ops' },
          { username: 'b', name: 'B', email: 'b@example.com', department: 'HR' },
        ],
      },
      undefined,
      'POST',
    );
    cleanup.push(() => rig.close());
    const a = await rig.client.fetch({ department: 'HR' });
    expect(a.records.map((r) => r.username)).toEqual(['b']);
  });
});
