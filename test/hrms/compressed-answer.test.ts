import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { AttendanceClient, type AttendancePunch } from '../../src/hrms/attendance.js';

/**
 * A proxy or web server in front of the HRMS that compresses every answer, though punchgate asks
 * for none: the HRMS recorded each batch and its answer was read as "not the HRMS's JSON", so no
 * punch was ever confirmed and the same batch was sent again and again. The answer is now decoded
 * (its decoded size capped like any answer's).
 */
describe('an answer compressed though none was asked for', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await new Promise((r) => server!.close(r));
    server = undefined;
  });
  const punches: AttendancePunch[] = [
    { biometriccode: '1001', logDate: '2026-12-01 08:00:00', devicelogId: 'plant-t-1' },
    { biometriccode: '1002', logDate: '2026-12-01 08:01:00', devicelogId: 'plant-t-2' },
  ];
  /** A server answering each POST with `body` sent in `encoding`; counts the requests. */
  const serve = async (encoding: string, encode: (b: Buffer) => Buffer, body?: string) => {
    const seen = { requests: 0 };
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.requests++;
        const json =
          body ??
          JSON.stringify({
            status: true,
            message: 'ok',
            payload: punches.map((p) => ({ status: true, devicelogId: p.devicelogId, message: 'added' })),
          });
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
        res.end(encode(Buffer.from(json)));
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const client = new AttendanceClient({
      hrms: {
        baseUrl: `http://127.0.0.1:${port}`,
        attendancePath: '/api/attendance',
        timeoutMs: 5000,
        connectTimeoutMs: 2000,
      },
      authPatterns: [],
      env: {},
    });
    return { client, seen };
  };

  it.each([
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
  ] as const)('a %s answer confirms the punches it names', async (encoding, encode) => {
    const { client, seen } = await serve(encoding, encode);
    try {
      const answer = await client.send(punches, { token: 'Tk-1' });
      expect(answer).toMatchObject({ kind: 'answered', results: [{ status: true }, { status: true }] });
      expect(seen.requests).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('one that inflates past the answer budget is refused unread', async () => {
    const big = JSON.stringify({ status: true, message: 'x'.repeat(10 * 1024 * 1024), payload: [] });
    const { client } = await serve('gzip', gzipSync, big);
    try {
      const answer = await client.send(punches, { token: 'Tk-1' });
      expect(answer).toMatchObject({ kind: 'bad-reply' });
      expect((answer as { message: string }).message).toMatch(/refused unread/);
    } finally {
      await client.close();
    }
  });
});
