import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { compilePatterns } from '../../src/delivery/outcomes.js';
import { AttendanceClient, type AttendanceAnswer } from '../../src/hrms/attendance.js';
import { startScriptedHrms, type ScriptedHrms, type ScriptedReply } from '../helpers/scripted-hrms.js';

/**
 * The attendance client against an HRMS whose answers say one thing in a shape that could be read
 * as another: the contract's failure object written with an empty payload, and an answer that gives
 * one status twice, spelled two ways (the contract shows both spellings), with two values.
 */
const TOKEN = 'lying-token-4c1d9e';
/** The config's default patterns, as the daemon has them. */
const DEFAULTS = configSchema.shape.delivery.parse({}).patterns;
const AUTH = compilePatterns(DEFAULTS.authFailure);
const punches = [
  { biometriccode: '101', logDate: '2026-11-01 08:00:00', devicelogId: 's-1' },
  { biometriccode: '102', logDate: '2026-11-01 08:01:00', devicelogId: 's-2' },
];

let hrms: ScriptedHrms;
beforeAll(async () => {
  hrms = await startScriptedHrms(() => ({}));
});
afterAll(async () => {
  await hrms.stop();
});

async function answer(reply: ScriptedReply, sent = punches): Promise<AttendanceAnswer> {
  hrms.reply = () => reply;
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

describe('the failure object with an empty payload (a server that always writes one) is about the whole request', () => {
  it('a refused token is a token refusal, for a batch and for the empty batch of check and the probes', async () => {
    const revoked = { body: { status: false, message: 'Bearer token is not correct', payload: [] } };
    expect(await answer(revoked)).toMatchObject({ kind: 'auth', message: 'Bearer token is not correct' });
    // Before, the empty batch read it as an answer with no results: check said the token was accepted.
    expect(await answer(revoked, [])).toMatchObject({ kind: 'auth' });
    // Results written beside it, each saying the same: no punch is refused for it.
    const each = punches.map(() => ({ status: false, message: 'Bearer token is not correct' }));
    expect(
      await answer({ body: { status: false, message: 'Bearer token is not correct', payload: each } }),
    ).toMatchObject({ kind: 'auth' });
  });

  it('a refusal for the size shrinks the batch; any other is a refusal of the request (split), not a bad reply', async () => {
    expect(
      await answer({ body: { Status: false, Message: 'Batch exceeds the maximum of 1 punches', Payload: [] } }),
    ).toMatchObject({ kind: 'too-large' });
    expect(
      await answer({ status: 400, body: { status: false, message: 'Invalid logDate', payload: [] } }),
    ).toMatchObject({
      kind: 'refused',
      message: 'Invalid logDate',
    });
    // The empty batch refused so is no acceptance either.
    expect(await answer({ body: { status: false, message: 'Under maintenance', payload: [] } }, [])).toMatchObject({
      kind: 'refused',
    });
  });

  it('Status true with an empty payload for punches sent still confirms nothing', async () => {
    expect(await answer({ body: { Status: true, Payload: [] } })).toMatchObject({ kind: 'bad-reply' });
  });
});

describe('one status given twice, spelled two ways, with two values, confirms nothing', () => {
  it('in a result: not delivered', async () => {
    const a = await answer({
      body: {
        Status: true,
        Payload: [
          { status: true, Status: false, message: 'added' },
          { status: true, message: 'added' },
        ],
      },
    });
    expect(a).toMatchObject({ kind: 'bad-reply' });
    expect(a.kind === 'bad-reply' && a.message).toContain("result 1's status is given twice, spelled two ways");
  });

  it('overall: not a request that failed as a whole, nor one that went through', async () => {
    const both = { Status: true, status: false, Payload: punches.map(() => ({ status: true, message: 'added' })) };
    const a = await answer({ body: both });
    expect(a).toMatchObject({ kind: 'bad-reply' });
    expect(a.kind === 'bad-reply' && a.message).toContain('overall Status is given twice');
  });

  it('two spellings that agree (the same value, or its same text) are read as one', async () => {
    const a = await answer({
      body: {
        Status: true,
        status: 'true',
        Payload: punches.map(() => ({ status: 1, Status: '1', message: 'added' })),
      },
    });
    expect(a).toMatchObject({ kind: 'answered', overall: true, results: [{ status: true }, { status: true }] });
    // A true beside a 1 is not the same word: not read.
    const b = await answer({
      body: { Status: true, Payload: punches.map(() => ({ status: true, STATUS: 1, message: 'added' })) },
    });
    expect(b).toMatchObject({ kind: 'bad-reply' });
  });
});

describe("a token refused in an API's usual words is a token refusal by the default patterns", () => {
  it.each(['Invalid token', 'Token has expired', 'Unauthenticated.', 'Invalid API token', 'Token is invalid'])(
    '"%s": AUTH FAILED, not a refusal of the request',
    async (message) => {
      expect(await answer({ status: 200, body: { status: false, message } })).toMatchObject({ kind: 'auth' });
    },
  );

  it('words about a punch are no token refusal', async () => {
    const a = await answer({ status: 400, body: { status: false, message: 'Invalid biometric code 101' } });
    expect(a).toMatchObject({ kind: 'refused' });
  });
});

describe('an answer compressed though none was asked for', () => {
  it('confirms nothing and says why, not its bytes', async () => {
    const a = await answer({
      headers: { 'content-encoding': 'gzip' },
      body: '\u001f\u008b\u0008\u0000 compressed bytes',
    });
    expect(a).toMatchObject({ kind: 'bad-reply' });
    expect(a.kind === 'bad-reply' && a.message).toContain(
      'a body compressed as "gzip" (Content-Encoding), though none was asked for',
    );
  });
});
