import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HikvisionListenEndpoint } from '../../src/sources/hikvision/listen-endpoint.js';
import { hikConfig, journalFixture, journalKeys } from './helpers.js';

/**
 * HTTP Listening posts as Hikvision firmware sends them, each a minimal reconstruction of the
 * variant named in the reference notes (hikvision-isapi.md "HTTP listening",
 * docs/terminals-hikvision.md): multipart `event_log` + `Picture` parts in either order, the event
 * part typed text/plain or not at all, quoted and bare boundaries, LF part heads, a bare JSON
 * body, heartbeats (`eventType: heartBeat`) and door events with no person, `+08:00` offsets.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function endpoint() {
  const f = journalFixture();
  cleanups.push(f.cleanup);
  f.journal.terminals.update('reception', { serial: 'DS-K1T671-TEST' });
  const ep = new HikvisionListenEndpoint(hikConfig({ url: 'http://127.0.0.1:1' }, { listen: true }), f.deps, {
    serial: () => f.journal.terminals.get('reception')?.serial ?? '',
    backfill: () => undefined,
  });
  const server: Server = createServer((req, res) => void ep.handle({ req, res, address: '127.0.0.1' }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { ...f, port: (server.address() as AddressInfo).port };
}

function post(port: number, body: Buffer | string, type: string | undefined) {
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        method: 'POST',
        headers: type === undefined ? {} : { 'content-type': type },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const punchJson = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    ipAddress: '127.0.0.1',
    portNo: 80,
    protocol: 'HTTP',
    macAddress: '',
    channelID: 1,
    dateTime: '2026-11-02T08:15:30+08:00',
    activePostCount: 1,
    eventType: 'AccessControllerEvent',
    eventState: 'active',
    eventDescription: 'Access Controller Event',
    AccessControllerEvent: {
      deviceName: 'Access Controller',
      majorEventType: 5,
      subEventType: 75,
      name: 'Ann',
      cardReaderNo: 1,
      employeeNoString: '2001',
      serialNo: 4411,
      userType: 'normal',
      currentVerifyMode: 'cardOrFace',
      attendanceStatus: 'checkIn',
      ...extra,
    },
  });
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
  Buffer.alloc(3000, 0x41),
  Buffer.from([0xff, 0xd9]),
]);

interface Part {
  name: string;
  type?: string;
  body: Buffer | string;
  file?: string;
}
function multipart(boundary: string, parts: Part[], eol = '\r\n'): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    const head = [
      `--${boundary}`,
      `Content-Disposition: form-data; name="${p.name}"${p.file ? `; filename="${p.file}"` : ''}`,
      ...(p.type ? [`Content-Type: ${p.type}`] : []),
      `Content-Length: ${Buffer.byteLength(p.body)}`,
      '',
      '',
    ].join(eol);
    out.push(Buffer.from(head), Buffer.from(p.body), Buffer.from(eol));
  }
  out.push(Buffer.from(`--${boundary}--${eol}`));
  return Buffer.concat(out);
}
const ev = (type?: string, body = punchJson()): Part => ({ name: 'event_log', type, body });
const pic: Part = { name: 'Picture', type: 'image/jpeg', body: JPEG, file: 'Picture.jpg' };
const ONE = ['2001@2026-11-02 08:15:30'];

describe('HTTP Listening posts as real firmware sends them', () => {
  it.each([
    ['event then picture, quoted boundary', 'MIME_boundary', true, [ev('application/json'), pic], '\r\n'],
    ['picture then event', 'MIME_boundary', false, [pic, ev('application/json')], '\r\n'],
    ['event part as text/plain', 'b0undary', false, [ev('text/plain'), pic], '\r\n'],
    ['event part with no Content-Type', 'b0undary', false, [pic, ev(undefined)], '\r\n'],
    ['LF part heads', '---------------------------7e13971310878', false, [ev('application/json'), pic], '\n'],
    ['charset in the part type', 'xyz', true, [ev('application/json; charset="UTF-8"'), pic], '\r\n'],
  ] as const)('%s: the punch is journalled once', async (_what, boundary, quoted, parts, eol) => {
    const f = await endpoint();
    const body = multipart(boundary, [...parts], eol);
    const type = `multipart/form-data; boundary=${quoted ? `"${boundary}"` : boundary}`;
    expect(await post(f.port, body, type)).toBe(200);
    expect(await post(f.port, body, type)).toBe(200); // a retry is the same punch
    expect(journalKeys(f.journal)).toEqual(ONE);
  });

  it.each([
    ['application/json', 'application/json'],
    ['text/plain', 'text/plain'],
    ['no Content-Type', undefined],
  ])('a bare JSON post (%s) is journalled', async (_what, type) => {
    const f = await endpoint();
    expect(await post(f.port, punchJson(), type)).toBe(200);
    expect(journalKeys(f.journal)).toEqual(ONE);
  });

  it('a dateTime whose zero offset lost its sign (`...T08:15:3000:00`, Supergiovane/node-red-contrib-hikvision-ultimate#59) is a punch at its wall clock, not quarantined', async () => {
    const f = await endpoint();
    const body = JSON.parse(punchJson()) as Record<string, unknown>;
    body.dateTime = '2026-11-02T08:15:3000:00';
    expect(await post(f.port, JSON.stringify(body), 'application/json')).toBe(200);
    expect(f.journal.queries.quarantineSummary()).toEqual([]);
    expect(journalKeys(f.journal)).toEqual(ONE);
  });

  it('a heartbeat and a door event without a person are answered 200 and keep nothing', async () => {
    const f = await endpoint();
    const heartbeat = JSON.stringify({
      ipAddress: '127.0.0.1',
      portNo: 80,
      protocol: 'HTTP',
      macAddress: '',
      channelID: 1,
      dateTime: '2026-11-02T08:15:00+08:00',
      activePostCount: 0,
      eventType: 'heartBeat',
      eventState: 'active',
      eventDescription: 'heartBeat',
    });
    expect(await post(f.port, heartbeat, 'application/json')).toBe(200);
    expect(
      await post(f.port, multipart('hb', [ev('application/json', heartbeat)]), 'multipart/form-data; boundary=hb'),
    ).toBe(200);
    const door = punchJson({ majorEventType: 5, subEventType: 21, employeeNoString: undefined, name: undefined });
    expect(await post(f.port, multipart('d', [ev('application/json', door)]), 'multipart/form-data; boundary=d')).toBe(
      200,
    );
    expect(journalKeys(f.journal)).toEqual([]);
  });
});
