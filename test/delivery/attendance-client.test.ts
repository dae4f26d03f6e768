import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AttendanceClient,
  classifyResponse,
  parseRetryAfter,
  type AttendanceAnswer,
} from '../../src/hrms/attendance.js';
import { freePort } from '../../bench/lib/ports.js';
import { compilePatterns } from '../../src/delivery/outcomes.js';
import { MAX_RETRY_AFTER_MS } from '../../src/hrms/text.js';

const TOKEN = 'client-secret-token-42';
const PATH = '/api.php/hrm/syncattendanceshiftwise/fetchBulkAttendanceFromAttendanceServer';
const AUTH = compilePatterns(['bearer token', 'token (is )?(not correct|invalid|expired)', 'unauthori[sz]ed']);

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  fields: Array<[string, string]>;
}

/** A bare HTTP server whose next answers the test sets; it records what it was sent. */
let server: Server;
let base: string;
const seen: Seen[] = [];
let respond: (req: IncomingMessage, res: ServerResponse) => void = (_q, res) => res.end('{}');

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const ct = req.headers['content-type'];
      void new Response(body, { headers: { 'content-type': ct ?? '' } })
        .formData()
        .then((f) => [...f.entries()].map(([k, v]) => [k, String(v)] as [string, string]))
        .catch(() => [] as Array<[string, string]>)
        .then((fields) => {
          seen.push({
            method: req.method ?? '',
            url: req.url ?? '',
            authorization: req.headers.authorization,
            contentType: ct,
            fields,
          });
          respond(req, res);
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

function client(over: { baseUrl?: string; timeoutMs?: number; connectTimeoutMs?: number } = {}): AttendanceClient {
  return new AttendanceClient({
    hrms: {
      baseUrl: over.baseUrl ?? base,
      attendancePath: PATH,
      // Long by default, so that the short deadlines and the abort below stand far from it.
      timeoutMs: over.timeoutMs ?? 10_000,
      // 5 s (was 1 s): the server is in this process, and a loaded CI box holding it past the connect
      // timeout failed a request by chance (the connect timer fires before the connection is seen).
      connectTimeoutMs: over.connectTimeoutMs ?? 5000,
    },
    authPatterns: AUTH,
  });
}

const punches = [
  { biometriccode: '101', logDate: '2026-11-01 08:00:00', devicelogId: 'plant-a-1' },
  { biometriccode: '102', logDate: '2026-11-01 08:01:00', devicelogId: 'plant-a-2' },
];

function answerWith(status: number, body: unknown, headers: Record<string, string> = {}) {
  respond = (_q, res) => {
    res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

async function send(c = client(), signal?: AbortSignal): Promise<AttendanceAnswer> {
  try {
    return await c.send(punches, { token: TOKEN, ...(signal ? { signal } : {}) });
  } finally {
    await c.close();
  }
}

describe('AttendanceClient', () => {
  it('POSTs one multipart field punches_data with the JSON array and the bearer token, under the base URL prefix', async () => {
    answerWith(200, {
      Status: true,
      Payload: [
        { status: true, message: 'ok' },
        { status: true, message: 'ok' },
      ],
    });
    seen.length = 0;
    const a = await send();
    expect(a).toEqual({
      kind: 'answered',
      httpStatus: 200,
      overall: true,
      results: [
        { status: true, message: 'ok' },
        { status: true, message: 'ok' },
      ],
    });
    const [req] = seen;
    expect(req).toMatchObject({ method: 'POST', url: `/prefix${PATH}`, authorization: `Bearer ${TOKEN}` });
    expect(req!.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(req!.fields).toHaveLength(1);
    expect(req!.fields[0]![0]).toBe('punches_data');
    expect(JSON.parse(req!.fields[0]![1])).toEqual(punches);
  });

  it('reads both key spellings and loose per-punch status values', async () => {
    answerWith(200, {
      status: 'true',
      payload: [
        { Status: 1, Message: 'added' },
        { status: 'false', msg: 'Attendance already exists' },
      ],
    });
    expect(await send()).toMatchObject({
      kind: 'answered',
      overall: true,
      results: [
        { status: true, message: 'added' },
        { status: false, message: 'Attendance already exists' },
      ],
    });
  });

  it('an answer that does not fit the batch confirms nothing (bad reply)', async () => {
    const ok = { status: true, message: 'ok' };
    const cases: Array<[string, unknown]> = [
      ['an unreadable element', { Status: true, Payload: [ok, 'garbage'] }],
      ['more results than punches', { Status: true, Payload: [ok, ok, ok] }],
      ['fewer results than punches', { Status: true, Payload: [ok] }],
      [
        'a punch never sent',
        {
          Status: true,
          Payload: [
            { ...ok, devicelogId: 'plant-a-1' },
            { ...ok, devicelogId: 'x-9' },
          ],
        },
      ],
      [
        'the same punch twice',
        {
          Status: true,
          Payload: [
            { ...ok, devicelogId: 'plant-a-1' },
            { ...ok, devicelogId: 'plant-a-1' },
          ],
        },
      ],
      ['another punch in that place', { Status: true, Payload: [ok, { ...ok, devicelogId: 'plant-a-1' }] }],
      ['another employee code', { Status: true, Payload: [{ ...ok, biometriccode: '999' }, ok] }],
      ['a status that is not a boolean', { Status: true, Payload: [ok, { status: 'maybe', message: '?' }] }],
      ['a status of 2', { Status: true, Payload: [ok, { status: 2, message: '?' }] }],
      ['an object as status', { Status: true, Payload: [ok, { status: { ok: true }, message: '?' }] }],
      ['an overall status that is not a boolean', { Status: 'partly', Payload: [ok, ok] }],
      ['Status true without any result', { Status: true }],
    ];
    for (const [what, body] of cases) {
      answerWith(200, body);
      expect(await send(), what).toMatchObject({ kind: 'bad-reply', httpStatus: 200 });
    }
  });

  it('results naming every punch are matched by devicelogId, whatever their order', async () => {
    answerWith(200, {
      Status: true,
      Payload: [
        { status: false, message: 'Unknown code 102', devicelogId: 'plant-a-2' },
        { status: '1', message: 'added', DeviceLogId: 'plant-a-1' },
      ],
    });
    expect(await send()).toMatchObject({
      kind: 'answered',
      results: [
        { status: true, message: 'added' },
        { status: false, message: 'Unknown code 102' },
      ],
    });
  });

  it('classifies whole-request answers', async () => {
    const cases: Array<[number, unknown, Record<string, string>, Partial<AttendanceAnswer> & { kind: string }]> = [
      [
        401,
        { status: false, message: 'Bearer token is not correct' },
        {},
        { kind: 'auth', message: 'Bearer token is not correct' },
      ],
      [200, { status: false, message: 'Bearer token is not correct' }, {}, { kind: 'auth' }],
      [413, { status: false, message: 'Batch too large' }, {}, { kind: 'too-large' }],
      [
        503,
        { status: false, message: 'Service temporarily unavailable' },
        {},
        { kind: 'transient', afterSending: true },
      ],
      [
        429,
        { status: false, message: 'Too many requests' },
        { 'retry-after': '3' },
        { kind: 'transient', retryAfterMs: 3000, afterSending: false },
      ],
      [200, '<html>502 Bad Gateway</html>', {}, { kind: 'bad-reply', httpStatus: 200 }],
      [
        400,
        { status: false, message: 'Batch refused: biometric code 9 cannot be processed' },
        {},
        { kind: 'refused', httpStatus: 400 },
      ],
      [404, '<html>Not Found</html>', {}, { kind: 'request-failed', httpStatus: 404 }],
      [200, { status: false, message: 'Input parameters are not valid' }, {}, { kind: 'refused', httpStatus: 200 }],
      [200, { Status: true }, {}, { kind: 'bad-reply' }],
      // Size refusals name the request, its body or the batch; a refusal about a punch does not.
      [200, { status: false, message: 'Batch exceeds the maximum of 100 punches' }, {}, { kind: 'too-large' }],
      [200, { status: false, message: 'Too many punches in one request' }, {}, { kind: 'too-large' }],
      [200, { status: false, message: 'Request body too large' }, {}, { kind: 'too-large' }],
      [
        200,
        { status: false, message: 'Batch too large: 300 punches, at most 200 per request' },
        {},
        { kind: 'too-large' },
      ],
      [
        400,
        { status: false, message: 'Punch for employee 1005 exceeds the maximum of 4 punches per day' },
        {},
        { kind: 'refused', httpStatus: 400 },
      ],
      [200, { status: false, message: 'Too many punches today for employee 7' }, {}, { kind: 'refused' }],
      // A refusal without a word says so.
      [200, { Status: false }, {}, { kind: 'refused', wordless: true }],
      // A server's Retry-After is read as asked (the time is said); the deliverer bounds the wait
      // by delivery.retryAfterMaxMs (retry-after-bound.test.ts). Past a hundred years, a hundred years.
      [503, { message: 'down' }, { 'retry-after': '86400' }, { kind: 'transient', retryAfterMs: 86_400_000 }],
      [
        503,
        { message: 'down' },
        { 'retry-after': '86400000000' },
        { kind: 'transient', retryAfterMs: MAX_RETRY_AFTER_MS },
      ],
      [
        429,
        { message: 'slow down' },
        { 'retry-after': 'Thu, 01 Jan 2099 00:00:00 GMT' },
        { kind: 'transient', retryAfterMs: expect.toSatisfy((ms: number) => ms > 70 * 365 * 86_400_000) },
      ],
    ];
    for (const [status, body, headers, expected] of cases) {
      answerWith(status, body, headers);
      expect(await send(), `HTTP ${status} ${JSON.stringify(body)}`).toMatchObject(expected);
    }
  });

  it('never puts the token in a message, even when the server echoes it', async () => {
    answerWith(400, { status: false, message: `bad request from Bearer ${TOKEN}` });
    const a = await send();
    expect(JSON.stringify(a)).not.toContain(TOKEN);
    expect(a).toMatchObject({ kind: 'refused', message: 'bad request from Bearer [REDACTED]' });
  });

  it('a connection refused is transient and known not to have reached the HRMS', async () => {
    // A port below the ephemeral range: one from a closed listen(0) could go to another test's server meanwhile.
    const port = await freePort();
    const a = await send(client({ baseUrl: `http://127.0.0.1:${port}` }));
    expect(a).toMatchObject({ kind: 'transient', afterSending: false });
    expect((a as { message: string }).message).toMatch(/ECONNREFUSED/);
  });

  it('a connection reset after the request is transient with an unknown outcome', async () => {
    respond = (req) => req.socket.destroy();
    expect(await send()).toMatchObject({ kind: 'transient', afterSending: true });
  });

  it('times out on a silent server and aborts at once on the caller signal', async () => {
    respond = () => {};
    const t0 = Date.now();
    const a = await send(client({ timeoutMs: 100, connectTimeoutMs: 1000 })); // deadline 1.1 s
    expect(a).toMatchObject({ kind: 'transient', afterSending: true });
    expect((a as { message: string }).message).toMatch(/timeout/i);
    // Its own 100 ms deadline, not the 10 s default: a bound a loaded CI box keeps.
    expect(Date.now() - t0).toBeLessThan(5000);

    const ctl = new AbortController();
    const t1 = Date.now();
    setTimeout(() => ctl.abort(), 50);
    const b = await send(client(), ctl.signal);
    expect(b.kind).toBe('transient');
    expect(Date.now() - t1).toBeLessThan(5000);
  });
});

describe('classifyResponse and Retry-After', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('a 2xx JSON that is not an object is a bad reply', () => {
    expect(
      classifyResponse({ status: 200, headers: {}, text: '[1,2]' }, punches, { authPatterns: AUTH }),
    ).toMatchObject({ kind: 'bad-reply' });
  });
});
