import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import { MultipartStreamParser, type StreamPart } from '../../src/sources/hikvision/multipart.js';
import { accessEventOf } from '../../src/sources/hikvision/realtime.js';
import { hikConfig, journalFixture, journalKeys, passwordEnv } from './helpers.js';

/**
 * Terminals that answer wrongly: a page that claims more rows than it carries, an HTML page,
 * an answer that never ends. The poll survives each, loses nothing, and says what happened.
 */
let server: Server | undefined;
let fx: ReturnType<typeof journalFixture> | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  fx?.cleanup();
  server = fx = undefined;
});

/** A device without authentication whose event search answers with `search`. */
async function device(search: (cond: Record<string, number>, res: ServerResponse) => void): Promise<string> {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      const json = (o: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(o));
      };
      if (path === '/ISAPI/System/deviceInfo') return json({ DeviceInfo: { serialNumber: 'HOSTILE-1' } });
      if (path === '/ISAPI/System/time') {
        return json({ Time: { localTime: new Date().toISOString().slice(0, 19) + '+00:00', timeZone: 'CST+0:00:00' } });
      }
      if (path === '/ISAPI/AccessControl/AcsEvent') {
        return search((JSON.parse(body) as { AcsEventCond: Record<string, number> }).AcsEventCond, res);
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const row = (i: number) => ({
  major: 5,
  minor: 75,
  serialNo: i + 1,
  employeeNoString: `E${i}`,
  time: `2026-11-02T07:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}+00:00`,
});

describe('Hikvision terminals that answer wrongly', () => {
  it('a page claiming 30 rows but carrying 25 skips none: the next page starts after the 25', async () => {
    const all = Array.from({ length: 100 }, (_, i) => row(i));
    const url = await device((c, res) => {
      const from = all.filter((r) => r.serialNo >= (c.beginSerialNo ?? 1)).slice(c.searchResultPosition);
      const rows = from.slice(0, 25);
      res.end(
        JSON.stringify({
          AcsEvent: {
            responseStatusStrg: from.length > 25 ? 'MORE' : 'OK',
            numOfMatches: from.length > 25 ? 30 : rows.length,
            totalMatches: 100,
            InfoList: rows,
          },
        }),
      );
    });
    fx = journalFixture();
    const r = await new HikvisionPoller(
      hikConfig({ url }, { timezone: 'UTC' }),
      fx.deps,
      undefined,
      passwordEnv(),
    ).poll();
    expect(r).toMatchObject({ ok: true, added: 100 });
    expect(journalKeys(fx.journal)).toHaveLength(100);
  });

  it('an HTML page instead of JSON: the poll fails, says so, and nothing is lost or crashes', async () => {
    const url = await device((_c, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>502 Bad Gateway</body></html>');
    });
    fx = journalFixture();
    const r = await new HikvisionPoller(hikConfig({ url }), fx.deps, undefined, passwordEnv()).poll();
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/AcsEvent: the device's answer is not JSON/);
    expect(fx.journal.terminals.get('reception')).toMatchObject({ online: true, lastError: r.error });
  });

  it('an answer that trickles for ever ends at the deadline', async () => {
    const url = await device((_c, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"AcsEvent": {');
      const t = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(t));
    });
    fx = journalFixture();
    const r = await new HikvisionPoller(
      hikConfig({ url }, { timeoutMs: 300 }),
      fx.deps,
      undefined,
      passwordEnv(),
    ).poll();
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/did not finish its answer within 1 s/);
  });
});

describe('the alert stream parser', () => {
  const parts: StreamPart[] = [];
  const feed = (text: string, chunk: number) => {
    parts.length = 0;
    const p = new MultipartStreamParser('MIME_boundary', (x) => parts.push(x));
    const buf = Buffer.from(text);
    for (let i = 0; i < buf.length; i += chunk) p.push(buf.subarray(i, i + chunk));
  };
  const json = JSON.stringify({
    dateTime: '2026-11-02T07:58:01+01:00',
    eventType: 'AccessControllerEvent',
    AccessControllerEvent: { majorEventType: 5, subEventType: 38, employeeNoString: '1042', serialNo: 7 },
  });
  const xml =
    '<EventNotificationAlert><dateTime>2026-11-02T07:59:00+01:00</dateTime><eventType>AccessControllerEvent</eventType>' +
    '<AccessControllerEvent><majorEventType>5</majorEventType><subEventType>75</subEventType><employeeNoString>1043</employeeNoString></AccessControllerEvent></EventNotificationAlert>';
  const stream =
    `--MIME_boundary\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}\r\n` +
    `--MIME_boundary\r\nContent-Type: application/xml\r\n\r\n${xml}\r\n` +
    `--MIME_boundary\r\nContent-Type: image/jpeg\r\nContent-Length: 4\r\n\r\n\xff\xd8\xff\xd9\r\n` +
    `--MIME_boundary\r\n`;

  it('reads JSON and XML events whatever the chunking, and skips pictures', () => {
    for (const chunk of [1, 7, 64, 10_000]) {
      feed(stream, chunk);
      const events = parts.map(accessEventOf).filter(Boolean);
      expect(events.map((e) => [e!.employeeNo, e!.minor, e!.time])).toEqual([
        ['1042', 38, '2026-11-02T07:58:01+01:00'],
        ['1043', 75, '2026-11-02T07:59:00+01:00'],
      ]);
    }
  });
});
