import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startHikvisionSim, type NewSimEvent } from '../../src/sim/hikvision/index.js';
import { postBody } from '../../src/sim/hikvision/http-listening.js';
import { HikvisionListenEndpoint } from '../../src/sources/hikvision/listen-endpoint.js';
import { boxHttpHost, httpHostsXml, parseHttpHostsXml, withBoxHost } from '../../src/sources/hikvision/http-hosts.js';
import { readListenContact, readListenRefusals } from '../../src/sources/hikvision/listen-state.js';
import { parseConfig } from '../../src/config/load.js';
import { alertLine } from '../../src/status/alert-words.js';
import { hikvisionAlerts } from '../../src/status/hikvision.js';
import type { SourceDeps } from '../../src/sources/types.js';
import { waitFor } from '../helpers/wait.js';
import { createLogger } from '../../src/util/logger.js';
import { classify, fromSearchRow } from '../../src/sources/hikvision/events.js';
import { UnknownMinorLog } from '../../src/sources/hikvision/unknown-minors.js';
import { DEFAULT_HIKVISION_MINORS } from '../../src/config/terminals.js';
import { hikConfig, journalFixture, journalKeys, openClient, PASSWORD } from './helpers.js';

const SERIAL = 'DS-K1T502-TEST';
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The endpoint of terminal `reception` (url 127.0.0.1) on a plain HTTP server, as the receiver hands posts over. */
async function endpointFixture(
  opts: {
    serial?: string;
    deps?: (d: SourceDeps) => SourceDeps;
    minors?: number[];
    unknownMinors?: UnknownMinorLog;
  } = {},
) {
  const f = journalFixture();
  cleanups.push(f.cleanup);
  if (opts.serial !== '') f.journal.terminals.update('reception', { serial: opts.serial ?? SERIAL });
  let backfills = 0;
  const deps = opts.deps ? opts.deps(f.deps) : f.deps;
  const endpoint = new HikvisionListenEndpoint(
    hikConfig({ url: 'http://127.0.0.1:1' }, { listen: true, ...(opts.minors ? { minors: opts.minors } : {}) }),
    deps,
    {
      serial: () => f.journal.terminals.get('reception')?.serial ?? '',
      backfill: () => void backfills++,
      ...(opts.unknownMinors ? { unknownMinors: opts.unknownMinors } : {}),
    },
  );
  const server: Server = createServer((req, res) => {
    void endpoint.handle({ req, res, address: req.socket.remoteAddress!.replace(/^::ffff:/, '') });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as AddressInfo).port;
  return {
    ...f,
    endpoint,
    port,
    url: `http://127.0.0.1:${port}/listen/hikvision/reception`,
    backfills: () => backfills,
  };
}

function post(port: number, body: Buffer | string, type: string, localAddress?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown> }>((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        method: 'POST',
        headers: { 'content-type': type },
        ...(localAddress ? { localAddress } : {}),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', () => resolve({ status: 0, headers: {} }));
    req.end(body);
  });
}

const face: NewSimEvent = { major: 5, minor: 75, employeeNoString: '100054', attendanceStatus: 'checkOut' };
const event = (serialNo: number, e: NewSimEvent = face) => ({ ...e, serialNo, time: '2026-11-02T07:58:01+05:30' });
const device = { macAddress: '44:19:b6:00:00:01', ipAddress: '127.0.0.1' };

describe('the HTTP Listening endpoint of a Hikvision terminal', () => {
  it.each(['json', 'xml', 'multipart'] as const)(
    'journals a %s post at the device wall clock, filed under the device serial, and answers 200',
    async (format) => {
      const f = await endpointFixture();
      const { type, body } = postBody(event(7), { format, pictureBytes: 200_000, device });
      expect((await post(f.port, body, type)).status).toBe(200);
      const [p] = f.journal.queries.list();
      expect(p).toMatchObject({ biometricCode: '100054', logTime: '2026-11-02 07:58:01', terminal: 'reception' });
      expect(f.journal.queries.list()).toHaveLength(1);
      expect(readListenContact(f.journal.sourceState, 'reception')?.lastPostAt).toBeGreaterThan(0);
      // The same event posted again (a retry) is the same punch.
      expect((await post(f.port, body, type)).status).toBe(200);
      expect(f.journal.queries.list()).toHaveLength(1);
    },
  );

  it.each(['json', 'xml'] as const)(
    'journals a %s post whose time has an offset of hours only (+05, -03) at its wall clock, not quarantined',
    async (format) => {
      const f = await endpointFixture();
      for (const [n, time] of [
        [1, '2026-11-02T07:58:01+05'],
        [2, '2026-11-02T07:59:01-03'],
      ] as const) {
        const { type, body } = postBody({ ...event(n), time }, { format, pictureBytes: 0, device });
        expect((await post(f.port, body, type)).status).toBe(200);
      }
      expect(journalKeys(f.journal)).toEqual(['100054@2026-11-02 07:58:01', '100054@2026-11-02 07:59:01']);
    },
  );

  it('journals the post of a DS-K1T323 whose body writes the boundary in another case than its header (a published capture)', async () => {
    const f = await endpointFixture();
    // As captured from a production terminal: `boundary=mime_boundary` in the header,
    // `--MIME_boundary` in the body, the event part named AccessControllerEvent, JSON laid out with TABs.
    const json = [
      '{',
      '\t"dateTime":\t"2026-09-19T18:02:38+03:00",',
      '\t"activePostCount":\t1,',
      '\t"eventType":\t"AccessControllerEvent",',
      '\t"eventState":\t"active",',
      '\t"AccessControllerEvent":\t{',
      '\t\t"deviceName":\t"Access Controller",',
      '\t\t"majorEventType":\t5,',
      '\t\t"subEventType":\t38,',
      '\t\t"employeeNoString":\t"000015",',
      '\t\t"serialNo":\t217,',
      '\t\t"currentVerifyMode":\t"cardOrFaceOrFp",',
      '\t\t"attendanceStatus":\t"undefined"',
      '\t}',
      '}',
    ].join('\r\n');
    const body = Buffer.from(
      '--MIME_boundary\r\nContent-Disposition: form-data; name="AccessControllerEvent"\r\n' +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}\r\n--MIME_boundary--\r\n`,
    );
    expect((await post(f.port, body, 'multipart/form-data; boundary=mime_boundary')).status).toBe(200);
    expect(journalKeys(f.journal)).toEqual(['000015@2026-09-19 18:02:38']);
  });

  it('journals a face-and-card pass (5/60) posted as a DS-K1T502 posts, and keeps nothing of its door event (pergolafabio/Hikvision-Addons#177)', async () => {
    const f = await endpointFixture();
    // The post's layout as published in that thread (reportChannel, cardReaderKind, frontSerialNo,
    // hasRecord), our own values; the pass as a terminal set to "face and card" writes it.
    const alert = (serialNo: number, inner: Record<string, unknown>) =>
      JSON.stringify({
        ipAddress: '127.0.0.1',
        portNo: 80,
        protocol: 'HTTP',
        dateTime: '2024-08-26T12:32:28+01:00',
        activePostCount: 1,
        eventType: 'AccessControllerEvent',
        eventState: 'active',
        eventDescription: 'Access Controller Event',
        AccessControllerEvent: {
          deviceName: 'DS-K1T502DBFWX-C',
          majorEventType: 5,
          reportChannel: 5,
          cardReaderKind: 1,
          doorNo: 1,
          serialNo,
          currentEvent: true,
          frontSerialNo: serialNo - 1,
          hasRecord: false,
          ...inner,
        },
      });
    const pass = alert(258, { subEventType: 60, employeeNoString: '31', cardNo: '3170588421' });
    expect((await post(f.port, pass, 'application/json')).status).toBe(200);
    expect((await post(f.port, alert(259, { subEventType: 21 }), 'application/json')).status).toBe(200);
    expect(journalKeys(f.journal)).toEqual(['31@2024-08-26 12:32:28']);
  });

  it('journals a JSON event wrapped in EventNotificationAlert, as the XML form is', async () => {
    const f = await endpointFixture();
    const body = JSON.stringify({
      EventNotificationAlert: {
        dateTime: '2026-09-15T18:05:00+06:00',
        eventType: 'AccessControllerEvent',
        AccessControllerEvent: {
          employeeNoString: 'EMP001',
          majorEventType: 5,
          subEventType: 75,
          attendanceStatus: 'checkOut',
          serialNo: 100003,
        },
      },
    });
    expect((await post(f.port, body, 'application/json')).status).toBe(200);
    expect(journalKeys(f.journal)).toEqual(['EMP001@2026-09-15 18:05:00']);
  });

  it('answers 200 and keeps nothing for door events, failures and other event types; 400 for what it cannot read', async () => {
    const f = await endpointFixture();
    for (const e of [event(8, { major: 5, minor: 21, doorNo: 1 }), event(9, { major: 5, minor: 39 })]) {
      const { type, body } = postBody(e, { format: 'json', pictureBytes: 0, device });
      expect((await post(f.port, body, type)).status).toBe(200);
    }
    expect((await post(f.port, '{"eventType":"videoloss","eventState":"inactive"}', 'application/json')).status).toBe(
      200,
    );
    expect((await post(f.port, '{"eventType":', 'application/json')).status).toBe(400);
    expect((await post(f.port, 'hello', 'text/plain')).status).toBe(400);
    const noEvent = Buffer.from('--b\r\nContent-Type: image/jpeg\r\n\r\nJPEG\r\n--b--\r\n');
    expect((await post(f.port, noEvent, 'multipart/form-data; boundary=b')).status).toBe(400);
    expect(f.journal.queries.list()).toHaveLength(0);
  });

  it('answers 503 while the device serial is unknown (and asks a poll), and while the journal cannot take the punch; the device posts again and the punch is kept once', async () => {
    const f0 = await endpointFixture({ serial: '' });
    const { type, body } = postBody(event(10), { format: 'json', pictureBytes: 0, device });
    const r0 = await post(f0.port, body, type);
    expect(r0.status).toBe(503);
    expect(r0.headers['retry-after']).toBeDefined();
    expect(f0.backfills()).toBe(1);
    expect(f0.journal.queries.list()).toHaveLength(0);

    let failing = true;
    const f = await endpointFixture({
      deps: (d) => ({
        ...d,
        sink: {
          ingest: (p, o) => {
            if (failing) throw new Error('SQLITE_BUSY: database is locked');
            return d.sink.ingest(p, o);
          },
        },
      }),
    });
    // A simulated terminal posting to it: it posts again until answered 200.
    const sim = await startHikvisionSim({
      password: PASSWORD,
      httpHost: f.url,
      listenFormat: 'multipart',
      listenRetryMs: 50,
    });
    cleanups.push(() => sim.stop());
    sim.addEvents([face]);
    await waitFor(() => sim.posts().attempts >= 3, 10_000, 'posts refused with 503');
    expect(sim.posts()).toMatchObject({ delivered: 0, lastStatus: 503 });
    expect(f.journal.queries.list()).toHaveLength(0);
    failing = false;
    await waitFor(() => sim.posts().delivered === 1, 10_000, 'the post answered 200');
    expect(journalKeys(f.journal)).toEqual([
      `100054@${sim.events()[0]!.time.slice(0, 10)} ${sim.events()[0]!.time.slice(11, 19)}`,
    ]);
  });

  it('answers 200 only once the punch is on the disk (its sync made beside the event loop); a failed sync is a 503, and the post again is kept once', async () => {
    const syncs: { end: (error?: Error) => void }[] = [];
    const f = await endpointFixture({
      deps: (d) => ({
        ...d,
        sink: {
          ingest: (p, o) => d.sink.ingest(p, o),
          ingestSyncedLater: (p, o) => {
            const synced = new Promise<void>((resolve, reject) =>
              syncs.push({ end: (error) => (error ? reject(error) : resolve()) }),
            );
            return { result: d.sink.ingest(p, o), synced };
          },
        },
      }),
    });
    const { type, body } = postBody(event(12), { format: 'json', pictureBytes: 0, device });
    let answered: number | undefined;
    const first = post(f.port, body, type).then((r) => (answered = r.status));
    await waitFor(() => syncs.length === 1, 10_000, 'the punch committed, its sync begun');
    expect(f.journal.queries.list()).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBeUndefined(); // not answered before its sync ends
    syncs[0]!.end(new Error('EIO: i/o error, fsync'));
    expect(await first).toBe(503);
    // The device posts it again: the same punch, answered once its sync ends.
    const again = post(f.port, body, type);
    await waitFor(() => syncs.length === 2, 10_000, 'the second sync begun');
    syncs[1]!.end();
    expect((await again).status).toBe(200);
    expect(f.journal.queries.list()).toHaveLength(1);
  });

  it('refuses a post from another address than the terminal (403), keeps nothing, and counts it for the status', async () => {
    const f = await endpointFixture();
    const { type, body } = postBody(event(11), { format: 'json', pictureBytes: 0, device });
    expect((await post(f.port, body, type, '127.0.0.2')).status).toBe(403);
    expect((await post(f.port, body, type, '127.0.0.2')).status).toBe(403);
    f.endpoint.stop();
    expect(f.journal.queries.list()).toHaveLength(0);
    expect(readListenRefusals(f.journal.sourceState, 'reception')).toMatchObject({ address: '127.0.0.2', count: 2 });
    expect(readListenContact(f.journal.sourceState, 'reception')).toBeUndefined();
  });

  it("refuses a post from the terminal's address that carries another device's MAC address (the poll read the terminal's)", async () => {
    const f = await endpointFixture();
    f.journal.sourceState.set({ terminal: 'reception', key: 'mac', value: '44-19-B6-00-00-01' });
    const mine = postBody(event(12), { format: 'json', pictureBytes: 0, device });
    expect((await post(f.port, mine.body, mine.type)).status).toBe(200);
    const other = postBody(event(13, { ...face, employeeNoString: 'OTHER' }), {
      format: 'xml',
      pictureBytes: 0,
      device: { ...device, macAddress: '00:11:22:33:44:55' },
    });
    expect((await post(f.port, other.body, other.type)).status).toBe(403);
    expect(journalKeys(f.journal)).toEqual(['100054@2026-11-02 07:58:01']);
    f.endpoint.stop();
    expect(readListenRefusals(f.journal.sourceState, 'reception')).toMatchObject({
      address: '127.0.0.1',
      mac: '00:11:22:33:44:55',
      count: 1,
    });
  });
  it("a post's macAddress that is no MAC address is kept and said as a short escaped sample, never whole", async () => {
    const f = await endpointFixture();
    f.journal.sourceState.set({ terminal: 'reception', key: 'mac', value: '44-19-B6-00-00-01' });
    // From the terminal's address (a device given it, or broken firmware): 200 kB of text with controls.
    const hostile = `<script>\u001b[2J\nFORGED\u202e${'M'.repeat(200_000)}`;
    const other = postBody(event(14), { format: 'json', pictureBytes: 0, device: { ...device, macAddress: hostile } });
    expect((await post(f.port, other.body, other.type)).status).toBe(403);
    f.endpoint.stop();
    const kept = readListenRefusals(f.journal.sourceState, 'reception')!;
    expect(kept.mac).toMatch(/^<script>\\x1b\[2J\\x0aFORGED\\u202eM+\.\.\. \(200020 chars\) \(not a MAC address\)$/);
    // What the status says of it (its text, status.json, the page; check words it the same way).
    const alerts = hikvisionAlerts(
      f.journal,
      parseConfig(
        {
          site: 'test',
          journal: { path: f.tmp.path('journal.db') },
          hrms: { baseUrl: 'https://hr.example.com' },
          adms: { listen: '127.0.0.1:0' },
          terminals: [
            { name: 'reception', kind: 'hikvision', url: 'http://127.0.0.1:1', listen: true, timezone: 'UTC' },
          ],
        },
        f.tmp.dir,
      ),
      Date.now(),
    );
    expect(alerts).toHaveLength(1);
    expect(alertLine(alerts[0]!).length).toBeLessThan(1000);
    // eslint-disable-next-line no-control-regex -- no raw control character may reach the alert
    expect(alertLine(alerts[0]!)).not.toMatch(/[\u0000-\u001f\u202e]/);
  });
});

describe('httpHosts', () => {
  it('the setting punchgate writes is what the simulator (and ISAPI) reads back, and other hosts are kept', async () => {
    const sim = await startHikvisionSim({ password: PASSWORD });
    cleanups.push(() => sim.stop());
    const c = await openClient(sim);
    cleanups.push(() => c.http.destroy());
    const other = { ...boxHttpHost('2', '10.0.0.9', 8080, '/other'), parameterFormatType: 'XML' };
    const put = async (hosts: Parameters<typeof httpHostsXml>[0]) =>
      (
        await c.http.request('PUT', '/ISAPI/Event/notification/httpHosts', {
          body: httpHostsXml(hosts),
          contentType: 'application/xml',
        })
      ).status;
    expect(await put([boxHttpHost('1', '0.0.0.0', 80, '/'), other])).toBe(200);
    const current = parseHttpHostsXml((await c.http.request('GET', '/ISAPI/Event/notification/httpHosts')).text);
    expect(current.map((h) => h.id)).toEqual(['1', '2']);
    const next = withBoxHost(current, '192.168.1.10', 8081, '/listen/hikvision/reception');
    expect(next.replaced).toBeUndefined();
    expect(await put(next.hosts)).toBe(200);
    expect(sim.httpHosts()).toMatchObject([
      {
        id: '1',
        url: '/listen/hikvision/reception',
        ipAddress: '192.168.1.10',
        portNo: 8081,
        parameterFormatType: 'JSON',
      },
      { id: '2', url: '/other', ipAddress: '10.0.0.9' },
    ]);
    // A device full of other hosts: the first is replaced, and said.
    expect(withBoxHost([other], '192.168.1.10', 8081, '/listen/hikvision/reception').replaced).toMatchObject({
      id: '2',
    });
    expect(
      (
        await c.http.request('PUT', '/ISAPI/Event/notification/httpHosts', {
          body: '<nonsense',
          contentType: 'application/xml',
        })
      ).status,
    ).toBe(400);
  });
});

describe('event codes sent as strings (firmware that quotes majorEventType/subEventType)', () => {
  /** A post as such firmware sends it: JSON laid out with TABs, CRLF, the codes quoted. */
  const quoted = (major: string, minor: string, employee: string, serialNo: string) =>
    [
      '{',
      '\t"ipAddress":\t"127.0.0.1",',
      '\t"macAddress":\t"44:19:b6:00:00:01",',
      '\t"dateTime":\t"2026-11-02T07:58:01+05:30",',
      '\t"eventType":\t"AccessControllerEvent",',
      '\t"AccessControllerEvent":\t{',
      `\t\t"majorEventType":\t${major},`,
      `\t\t"subEventType":\t${minor},`,
      `\t\t"employeeNoString":\t"${employee}",`,
      `\t\t"serialNo":\t${serialNo},`,
      '\t\t"attendanceStatus":\t"checkIn"',
      '\t}',
      '}',
    ].join('\r\n');

  it('journals a pass whose codes are numeric strings, and refuses garbage codes with a log line', async () => {
    const lines: string[] = [];
    const f = await endpointFixture({
      deps: (d) => ({ ...d, logger: createLogger({ level: 'debug', destination: { write: (s) => lines.push(s) } }) }),
    });
    expect((await post(f.port, quoted('"5"', '"75"', '100054', '"8"'), 'application/json')).status).toBe(200);
    expect(journalKeys(f.journal)).toEqual(['100054@2026-11-02 07:58:01']);
    // XML has nothing but text: the same pass there.
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?>\r\n<EventNotificationAlert><dateTime>2026-11-02T08:01:00+05:30</dateTime>' +
      '<eventType>AccessControllerEvent</eventType><AccessControllerEvent><majorEventType> 5 </majorEventType>' +
      '<subEventType>75</subEventType><employeeNoString>100055</employeeNoString><serialNo>9</serialNo>' +
      '</AccessControllerEvent></EventNotificationAlert>';
    expect((await post(f.port, xml, 'application/xml')).status).toBe(200);
    expect(journalKeys(f.journal)).toEqual(['100054@2026-11-02 07:58:01', '100055@2026-11-02 08:01:00']);
    // Garbage is not taken for a door event in silence: refused, logged (the poll reads the log).
    expect((await post(f.port, quoted('"5"', '"7five"', '100056', '10'), 'application/json')).status).toBe(200);
    expect(f.journal.queries.list()).toHaveLength(2);
    expect(lines.join('')).toContain('subEventType \\"7five\\" is not a number');
  });

  it('says the passes its minors leave out (face and card, 5/60), a line per 10 minutes at most however busy the door', async () => {
    const lines: string[] = [];
    let now = Date.UTC(2026, 10, 2, 2, 30);
    const f = await endpointFixture({
      deps: (d) => ({
        ...d,
        clock: { now: () => now },
        logger: createLogger({ level: 'info', destination: { write: (s) => lines.push(s) } }),
      }),
      minors: [75],
    });
    const faceAndCard = (n: number) =>
      postBody(event(n, { major: 5, minor: 60, employeeNoString: '100054' }), {
        format: 'json',
        pictureBytes: 0,
        device,
      });
    const said = () => lines.filter((l) => l.includes('leaves out'));
    for (let n = 1; n <= 30; n++) {
      const { type, body } = faceAndCard(n);
      expect((await post(f.port, body, type)).status).toBe(200);
    }
    expect(f.journal.queries.list()).toHaveLength(0);
    expect(said()).toHaveLength(1);
    expect(said()[0]).toContain(
      "terminal reception, HTTP Listening: 1 of 5/60: authentication passes that this terminal's `minors` setting leaves out, so not punches",
    );
    // Ten minutes on, the next one says those held back with it.
    now += 10 * 60_000;
    const { type, body } = faceAndCard(31);
    expect((await post(f.port, body, type)).status).toBe(200);
    expect(said()).toHaveLength(2);
    expect(said()[1]).toContain('HTTP Listening: 30 of 5/60: ');
  });

  it('says a person’s event under a minor in neither list (a newer firmware’s pass?) once per code', async () => {
    const lines: string[] = [];
    const f = await endpointFixture({
      deps: (d) => ({ ...d, logger: createLogger({ level: 'info', destination: { write: (s) => lines.push(s) } }) }),
      unknownMinors: new UnknownMinorLog('reception', new Set(DEFAULT_HIKVISION_MINORS)),
    });
    const said = () => lines.filter((l) => l.includes('neither an authentication pass'));
    for (const [n, minor] of [190, 190, 21, 39].entries()) {
      const { type, body } = postBody(event(n + 1, { major: 5, minor, employeeNoString: '100054' }), {
        format: 'json',
        pictureBytes: 0,
        device,
      });
      expect((await post(f.port, body, type)).status).toBe(200);
    }
    expect(f.journal.queries.list()).toHaveLength(0);
    expect(said()).toHaveLength(1);
    expect(said()[0]).toContain('terminal reception: events 5/190 carry an employee number');
  });

  it('reads them in the event search rows too (the poll)', () => {
    const e = fromSearchRow({ major: '5', minor: '75', employeeNoString: '7', serialNo: '12', time: 'x' });
    expect(e).toMatchObject({ major: 5, minor: 75, serialNo: 12 });
    expect(classify(e, 'reception', SERIAL, new Set([75])).kind).toBe('punch');
    const bad = fromSearchRow({ major: 5, minor: 'seventy', employeeNoString: '7', time: 'x' });
    expect(classify(bad, 'reception', SERIAL, new Set([75]))).toMatchObject({ kind: 'malformed' });
    // A serial number that is not one costs the pass nothing: it is read without it, as before.
    const noSerial = fromSearchRow({ major: 5, minor: 75, employeeNoString: '7', serialNo: 'n/a', time: 'x' });
    expect(noSerial.serialNo).toBeUndefined();
    expect(classify(noSerial, 'reception', SERIAL, new Set([75])).kind).toBe('punch');
  });
});
