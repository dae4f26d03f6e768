import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { HikvisionListenEndpoint } from '../../src/sources/hikvision/listen-endpoint.js';
import { hikConfig, journalFixture, journalKeys } from './helpers.js';

/**
 * HTTP Listening posts sent compressed (`Content-Encoding: gzip`, deflate or br: by the terminal,
 * or a proxy between it and this box). Read as they came, they were "malformed" (400) and their
 * passes waited for the poll; now they are uncompressed within the post's byte cap and read, and
 * one in a coding punchgate cannot read is refused (415) and said, never answered as kept.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function endpoint() {
  const f = journalFixture();
  cleanups.push(f.cleanup);
  f.journal.terminals.update('reception', { serial: 'DS-K1T671-TEST' });
  const said: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => said.push((JSON.parse(s) as { msg: string }).msg) });
  const ep = new HikvisionListenEndpoint(
    hikConfig({ url: 'http://127.0.0.1:1' }, { listen: true }),
    { ...f.deps, logger },
    { serial: () => f.journal.terminals.get('reception')?.serial ?? '', backfill: () => undefined },
  );
  const server: Server = createServer((req, res) => void ep.handle({ req, res, address: '127.0.0.1' }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { ...f, said, port: (server.address() as AddressInfo).port };
}

function post(port: number, body: Buffer, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const EVENT = JSON.stringify({
  ipAddress: '127.0.0.1',
  macAddress: '',
  dateTime: '2026-11-02T08:15:30+08:00',
  eventType: 'AccessControllerEvent',
  eventState: 'active',
  AccessControllerEvent: { majorEventType: 5, subEventType: 75, employeeNoString: '2001', serialNo: 4411 },
});
const ONE = ['2001@2026-11-02 08:15:30'];

function multipart(boundary: string): Buffer {
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(3000, 0x41), Buffer.from([0xff, 0xd9])]);
  return Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="event_log"\r\nContent-Type: application/json\r\n\r\n`,
    ),
    Buffer.from(EVENT),
    Buffer.from(
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="Picture"; filename="Picture.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    jpeg,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

describe('HTTP Listening posts sent compressed', () => {
  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('a JSON post in %s: read, the punch journalled, answered OK', async (coding, zip) => {
    const f = await endpoint();
    const got = await post(f.port, zip(Buffer.from(EVENT)), {
      'content-type': 'application/json',
      'content-encoding': coding,
    });
    expect(got.status).toBe(200);
    expect(journalKeys(f.journal)).toEqual(ONE);
  });

  it('a multipart post (event and picture) in gzip: read, the punch journalled', async () => {
    const f = await endpoint();
    const got = await post(f.port, gzipSync(multipart('MIME_boundary')), {
      'content-type': 'multipart/form-data; boundary=MIME_boundary',
      'content-encoding': 'gzip',
    });
    expect(got.status).toBe(200);
    expect(journalKeys(f.journal)).toEqual(ONE);
  });

  it('a coding punchgate cannot read, or a body not in its coding: 415, never OK, nothing kept, said', async () => {
    const f = await endpoint();
    const zstd = await post(f.port, Buffer.from('(\u00b5/\u00fd not really zstd'), {
      'content-type': 'application/json',
      'content-encoding': 'zstd',
    });
    expect(zstd.status).toBe(415);
    const cut = gzipSync(Buffer.from(EVENT));
    const short = await post(f.port, cut.subarray(0, cut.length - 12), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(short.status).toBe(415);
    expect(journalKeys(f.journal)).toEqual([]);
    expect(f.said).toContainEqual(
      expect.stringMatching(/compressed as "zstd" \(Content-Encoding\): punchgate reads gzip, deflate or br only/),
    );
    expect(f.said).toContainEqual(
      expect.stringMatching(/compressed as "gzip" \(Content-Encoding\): its bytes are not gzip data or were cut short/),
    );
  });

  it('a post larger than the cap once uncompressed is refused (413), never inflated past it', async () => {
    const f = await endpoint();
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20));
    const got = await post(f.port, bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(got.status).toBe(413);
    expect(journalKeys(f.journal)).toEqual([]);
  });
});
