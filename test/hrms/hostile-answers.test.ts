import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePatterns } from '../../src/delivery/outcomes.js';
import { AttendanceClient, type AttendanceAnswer } from '../../src/hrms/attendance.js';
import {
  startScriptedHrms,
  type ScriptedHrms,
  type ScriptedReply,
  type SeenRequest,
} from '../helpers/scripted-hrms.js';

/**
 * The attendance client against an HRMS (or whatever answers at its address) that misbehaves:
 * every answer that is not the HRMS speaking about these punches is a failure of the request,
 * said in plain words, and no secret comes back out in a message.
 */
const TOKEN = 'hostile-token-Zq9/x+Y7';
const AUTH = compilePatterns(['bearer token', 'token (is )?(not correct|invalid|expired)', 'unauthori[sz]ed']);
const punches = [
  { biometriccode: '101', logDate: '2026-11-01 08:00:00', devicelogId: 's-1' },
  { biometriccode: '102', logDate: '2026-11-01 08:01:00', devicelogId: 's-2' },
];

let hrms: ScriptedHrms;
let elsewhere: ScriptedHrms;
beforeAll(async () => {
  hrms = await startScriptedHrms(() => ({}));
  elsewhere = await startScriptedHrms(() => ({ body: '<html>login</html>' }));
});
afterAll(async () => {
  await hrms.stop();
  await elsewhere.stop();
});

async function answer(reply: (r: SeenRequest) => ScriptedReply, sent = punches): Promise<AttendanceAnswer> {
  hrms.reply = reply;
  const c = new AttendanceClient({
    hrms: { baseUrl: hrms.url, attendancePath: '/att', timeoutMs: 20_000, connectTimeoutMs: 5000 },
    authPatterns: AUTH,
    env: {},
  });
  try {
    return await c.send(sent, { token: TOKEN });
  } finally {
    await c.close();
  }
}

describe('transport problems are failures of the request, in plain words', () => {
  it('a redirect is never followed (the token stays home) and names where it points', async () => {
    elsewhere.seen.length = 0;
    const a = await answer(() => ({ status: 302, headers: { location: `${elsewhere.url}/sso/login?next=/att` } }));
    expect(a).toEqual({
      kind: 'request-failed',
      httpStatus: 302,
      // A single sign-on's login page: said as one, with the fix (no baseUrl passes a sign-in page).
      message: expect.stringMatching(
        new RegExp(
          `^the HRMS redirects to a sign-in page at ${new URL(elsewhere.url).host} \\(HTTP 302, not followed\\): the HRMS's API is behind a single sign-on or portal; ask its administrator to let /\\S* through with the token alone, and check hrms\\.baseUrl$`,
        ),
      ),
    });
    expect(elsewhere.seen).toEqual([]);
    const away = await answer(() => ({ status: 307, headers: { location: `${elsewhere.url}/att` } }));
    expect(away).toMatchObject({
      message: `the HRMS redirects to ${new URL(elsewhere.url).host} (HTTP 307, not followed): check hrms.baseUrl`,
    });
    expect(elsewhere.seen).toEqual([]);
    const hop = await answer(() => ({
      status: 301,
      headers: { location: hrms.url.replace('http:', 'https:') + '/att' },
    }));
    expect(hop).toMatchObject({
      kind: 'request-failed',
      message: expect.stringMatching(/redirects to https:\/\/.*it should use https/),
    });
  });

  it('404/405, the invalid-path answer, HTML error pages, foreign JSON and 407 are request failures', async () => {
    const cases: Array<[ScriptedReply, RegExp]> = [
      [
        { status: 404, body: '<html>Not Found</html>' },
        /does not know \/att \(HTTP 404\): check hrms.baseUrl and hrms.attendancePath/,
      ],
      [{ status: 404, body: { status: false, message: 'no route' } }, /does not know \/att/],
      [{ status: 405, body: '' }, /does not know \/att \(HTTP 405\)/],
      [
        {
          status: 200,
          body: {
            status: false,
            message: 'Input parameters are not valid. Please provide a valid group, plugin name and API function.',
          },
        },
        /does not know \/att \("Input parameters/,
      ],
      [
        { status: 403, body: '<html><head><title>Access denied by policy</title></head><body>x</body></html>' },
        /answers HTTP 403 with "Access denied by policy", not the HRMS's JSON/,
      ],
      [{ status: 400, body: '<html>Bad Request</html>' }, /answers HTTP 400 with "<html>Bad Request<\/html>"/],
      [
        { status: 400, body: { error: 'Bad Request', requestId: 'abc' } },
        /answers HTTP 400 with .*not the HRMS's JSON/,
      ],
      [
        { status: 407, body: '<html>Proxy Authentication Required</html>' },
        /^the proxy refused the credentials \(HTTP 407\)/,
      ],
    ];
    for (const [reply, message] of cases) {
      const a = await answer(() => reply);
      expect(a, JSON.stringify(reply)).toMatchObject({ kind: 'request-failed', message });
    }
  });

  it('5xx (JSON or not), 408 and 429 stay temporary; the HRMS JSON refusal of a request is a refusal (to split)', async () => {
    expect(await answer(() => ({ status: 502, body: '<html>Bad Gateway</html>' }))).toMatchObject({
      kind: 'transient',
      httpStatus: 502,
    });
    expect(await answer(() => ({ status: 500, body: { status: false, message: 'DB down' } }))).toMatchObject({
      kind: 'transient',
      message: 'HTTP 500: DB down',
    });
    expect(
      await answer(() => ({ status: 400, body: { status: false, message: 'code 9 cannot be processed' } })),
    ).toMatchObject({
      kind: 'refused',
      httpStatus: 400,
    });
    // ...unless it refuses the request for its size: a smaller batch is the cure.
    expect(
      await answer(() => ({ body: { status: false, message: 'Batch exceeds the maximum of 100 punches' } })),
    ).toMatchObject({
      kind: 'too-large',
    });
  });
});

describe('answers are bounded in memory', () => {
  it('an answer with far more elements than the batch is refused before it is built', async () => {
    const many = `{"Status":true,"Payload":[${'{},'.repeat(20_000)}{}]}`; // 60 KB: under the byte budget
    expect(
      await answer(() => ({ body: many as unknown as string, headers: { 'content-type': 'application/json' } })),
    ).toMatchObject({
      kind: 'bad-reply',
      message: expect.stringMatching(/far more elements than the 2 punches sent/),
    });
  });

  it('an answer far larger than the batch warrants is refused unread', async () => {
    const huge = { Status: true, Payload: punches.map(() => ({ status: true, message: 'x'.repeat(1024 * 1024) })) };
    expect(await answer(() => ({ body: huge }))).toMatchObject({
      kind: 'bad-reply',
      message: expect.stringMatching(/more than \d+ bytes for 2 punches \(refused unread\)/),
    });
    // An error page too large to read is judged by its status alone.
    expect(await answer(() => ({ status: 403, body: 'x'.repeat(2_000_000) }))).toMatchObject({
      kind: 'request-failed',
      httpStatus: 403,
    });
  });
});

describe('per-punch status values and messages', () => {
  it('booleans and their obvious string and number forms are read; the overall Status false takes only clear refusals', async () => {
    const a = await answer(() => ({
      body: {
        Status: 'TRUE',
        Payload: [
          { status: ' false ', message: 'Unknown code 101' },
          { status: 0, message: 'Unknown code 102' },
        ],
      },
    }));
    expect(a).toMatchObject({ kind: 'answered', overall: true, results: [{ status: false }, { status: false }] });
    const b = await answer(() => ({
      body: {
        status: false,
        payload: [
          { status: '1', message: 'added' },
          { status: 'false', message: 'no' },
        ],
      },
    }));
    expect(b).toMatchObject({ kind: 'answered', overall: false });
  });

  it('a message quoting the Authorization header loses the token in every form', async () => {
    const quoted = (r: SeenRequest) => {
      const header = String(r.headers.authorization);
      return {
        body: {
          Status: true,
          Payload: [
            { status: false, message: `refused: header was "${header}"` },
            {
              status: false,
              message: `b64 ${Buffer.from(header).toString('base64')} url ${encodeURIComponent(header)} b64url ${Buffer.from(`x${TOKEN}`).toString('base64url')}`,
            },
          ],
        },
      };
    };
    const a = await answer(quoted);
    const text = JSON.stringify(a);
    expect(text.split('[REDACTED]')).toHaveLength(5);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(encodeURIComponent(TOKEN));
    // No run of base64 characters left in the messages decodes to anything holding the token.
    for (const run of text.match(/[A-Za-z0-9+/_=-]{8,}/g) ?? []) {
      for (let cut = 0; cut < 4; cut++) {
        for (const form of ['base64', 'base64url'] as const)
          expect(Buffer.from(run.slice(cut), form).toString('latin1')).not.toContain(TOKEN.slice(0, 12));
      }
    }
  });

  it('control characters in HRMS messages are made visible, not passed to a terminal', async () => {
    const a = await answer(() => ({
      body: {
        Status: true,
        Payload: [
          { status: false, message: 'bad\u001b[2Jcode\u202e' },
          { status: true, message: 'ok' },
        ],
      },
    }));
    expect(a).toMatchObject({ kind: 'answered', results: [{ message: 'bad\\u001b[2Jcode\\u202e' }, {}] });
  });
});
