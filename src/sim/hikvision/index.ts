/**
 * Hikvision access-control terminal simulator (ISAPI over HTTP or HTTPS): Digest authentication
 * with a lockout, an event log searched by serial number or time with pages capped by the
 * device, a firmware switch without serial filters, the device clock, users and cards, and the
 * alert stream. Used by `punchgate sim hikvision` and by the tests of the Hikvision source.
 */
import { createServer as createHttp, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { listenPort, openSockets } from '../http-server.js';
import { DigestServer } from './digest-auth.js';
import { epochOf, EventLog, isoAtOffset, offsetMinutes } from './event-log.js';
import { People, responseStatus, type Answer } from './people.js';
import { handle, jsonText, type SimState } from './server.js';
import { HttpPoster, parseHttpHosts } from './http-listening.js';
import type {
  HikFirmware,
  HikvisionSim,
  HikvisionSimOptions,
  ListenFormat,
  NewSimEvent,
  SimEvent,
  SimRequest,
  WriteFault,
} from './types.js';

export type * from './types.js';
export { BAD_EVENT, generateEvents, employeeNoOf, type GenerateOptions } from './generate.js';
export { isoAtOffset } from './event-log.js';
export { parseHttpHosts } from './http-listening.js';

/** One listening host from a URL (http://127.0.0.1:8081/listen/hikvision/gate), as httpHosts holds it. */
function hostOf(url: string) {
  const u = new URL(url);
  return parseHttpHosts(
    JSON.stringify({
      id: '1',
      url: `${u.pathname}${u.search}`,
      protocolType: 'HTTP',
      parameterFormatType: 'JSON',
      addressingFormatType: 'ipaddress',
      ipAddress: u.hostname.replace(/^\[|\]$/g, ''),
      portNo: u.port || '80',
      httpAuthenticationMethod: 'none',
    }),
  );
}

export const DEFAULT_HIK_SERIAL = 'DS-K1T341AMF20230101V010000ENAB1234567';
export const DEFAULT_HIK_PASSWORD = 'Sim-passw0rd';
const BOUNDARY = 'MIME_boundary';
const MAX_LOGGED_REQUESTS = 200_000;

/** One part of the alert stream, laid out as the firmware does (its JSON layout, CRLF or bare-LF heads). */
function alertPart(json: unknown, fw: HikFirmware): string {
  const text = jsonText(json, fw.jsonLayout);
  const nl = fw.streamBareLf ? '\n' : '\r\n';
  return `--${BOUNDARY}${nl}Content-Type: application/json; charset="UTF-8"${nl}Content-Length: ${Buffer.byteLength(text)}${nl}${nl}${text}\r\n`;
}

/** The alert-stream notification of one event; `current` false for one re-sent from the stored log. */
function eventAlert(e: SimEvent, current: boolean): unknown {
  return {
    ipAddress: '127.0.0.1',
    portNo: 80,
    protocol: 'HTTP',
    dateTime: e.time,
    activePostCount: 1,
    eventType: 'AccessControllerEvent',
    eventState: 'active',
    eventDescription: 'Access Controller Event',
    AccessControllerEvent: {
      deviceName: 'Access Controller',
      majorEventType: e.major,
      subEventType: e.minor,
      ...(e.employeeNoString ? { employeeNoString: e.employeeNoString, name: e.name } : {}),
      ...(e.cardNo ? { cardNo: e.cardNo } : {}),
      ...(e.attendanceStatus ? { attendanceStatus: e.attendanceStatus } : {}),
      serialNo: e.serialNo,
      currentVerifyMode: e.currentVerifyMode,
      doorNo: e.doorNo,
      currentEvent: current,
      frontSerialNo: e.serialNo - 1,
      ...e.extra,
    },
  };
}

/**
 * An alert stream that breaks its bounds: a part that never ends (bytes for ever, no
 * Content-Length, as fast as the reader takes them), or one that announces 100 MB.
 */
function streamFault(res: ServerResponse, fw: HikFirmware): void {
  const nl = fw.streamBareLf ? '\n' : '\r\n';
  if (fw.streamFault === 'huge-part') {
    res.write(`--${BOUNDARY}${nl}Content-Type: image/jpeg${nl}Content-Length: ${100 * 1024 * 1024}${nl}${nl}`);
    return;
  }
  res.write(`--${BOUNDARY}${nl}Content-Type: image/jpeg${nl}${nl}`);
  const junk = Buffer.alloc(64 * 1024, 0x41);
  const more = () => {
    while (!res.destroyed) if (!res.write(junk)) return void res.once('drain', more);
  };
  more();
}

export async function startHikvisionSim(o: HikvisionSimOptions = {}): Promise<HikvisionSim> {
  const now = o.now ?? Date.now;
  const utcOffset = o.utcOffset ?? '+00:00';
  offsetMinutes(utcOffset); // throws on a bad offset
  let clockOffsetMs = (o.clockOffsetSeconds ?? 0) * 1000;
  const deviceTime = () => isoAtOffset(now() + clockOffsetMs, utcOffset);
  const firmware: HikFirmware = {
    serialFilters: 'yes',
    pageCap: 30,
    endSerialMax: null,
    advertisedEndSerialMax: 4_294_967_295,
    deviceInfoXml: false,
    jsonLayout: 'compact',
    streamReplay: false,
    streamBareLf: false,
    searchFault: null,
    hugePageBytes: 15 * 1024 * 1024,
    endlessUserSearch: false,
    streamFault: null,
    eventSearch: true,
    ...o.firmware,
  };
  const device = {
    serialNumber: o.serialNumber ?? DEFAULT_HIK_SERIAL,
    model: o.model ?? 'DS-K1T341AMF',
    firmwareVersion: o.firmwareVersion ?? 'V3.2.30',
    macAddress: '44:19:b6:00:00:01',
  };
  const auth = new DigestServer({
    username: o.username ?? 'admin',
    password: o.password ?? DEFAULT_HIK_PASSWORD,
    realm: 'DS-K1T341AMF',
    lockoutAfter: o.lockoutAfter ?? 5,
    lockoutMs: o.lockoutMs ?? 30 * 60_000,
    lockoutWindowMs: o.lockoutWindowMs ?? 30 * 60_000,
    nonceTtlMs: o.nonceTtlMs ?? 10 * 60_000,
    now,
  });
  const log = new EventLog(() => utcOffset);
  const people = new People(() => firmware.pageCap);
  for (const u of o.users ?? []) people.put(u);
  let requests: SimRequest[] = [];
  const logRequests = o.logRequests ?? true;
  const streams = new Set<ServerResponse>();
  let writeFault: WriteFault | null = o.writeFault ?? null;
  let writesDone = 0;

  let streamsOpened = 0;
  const poster = new HttpPoster({
    format: o.listenFormat ?? 'multipart',
    pictureBytes: o.listenPictureBytes ?? 60 * 1024,
    retryMs: o.listenRetryMs ?? 1000,
    ...(o.listenFrom ? { localAddress: o.listenFrom } : {}),
    device: { macAddress: device.macAddress, ipAddress: o.host ?? '127.0.0.1' },
  });
  if (o.httpHost) poster.setHosts(hostOf(o.httpHost) ?? []);
  const pushToStreams = (events: SimEvent[]) => {
    for (const e of events) {
      const part = alertPart(eventAlert(e, true), firmware);
      for (const res of streams) res.write(part);
    }
    poster.add(events);
  };

  const sim: Omit<HikvisionSim, 'url' | 'port' | 'stop'> = {
    events: () => log.all(),
    addEvents: (events: NewSimEvent[]) => {
      const added = log.add(events, deviceTime);
      pushToStreams(added);
      return added;
    },
    clearLog: () => log.clear(),
    users: () => people.listUsers(),
    cards: () => people.listCards(),
    requests: () => [...requests],
    clearRequests: () => void (requests = []),
    auth: () => ({ ...auth.stats }),
    firmware: () => ({ ...firmware }),
    setFirmware: (f) => Object.assign(firmware, f),
    setPassword: (p) => auth.setPassword(p),
    setWriteFault: (f) => {
      writeFault = f;
      writesDone = 0;
    },
    serialNumber: () => device.serialNumber,
    setSerialNumber: (sn) => void (device.serialNumber = sn),
    deviceTime,
    setClockOffsetSeconds: (s) => void (clockOffsetMs = s * 1000),
    streams: () => streams.size,
    streamsOpened: () => streamsOpened,
    dropStreams: () => {
      for (const res of streams) res.destroy();
      streams.clear();
    },
    httpHosts: () => poster.httpHosts(),
    setHttpHost: (url) => poster.setHosts(url ? (hostOf(url) ?? []) : []),
    setListenFormat: (f) => poster.setFormat(f),
    posts: () => poster.stats(),
    postsAcked: () => poster.acked(),
  };
  if (o.events?.length) log.add(o.events, deviceTime);

  const admin = (method: string, route: string, body: Buffer): Answer => {
    const json = (): Record<string, unknown> => {
      try {
        return (JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>) ?? {};
      } catch {
        return {};
      }
    };
    const ok = (b: unknown): Answer => ({ status: 200, body: b as Record<string, unknown> });
    switch (`${method} ${route}`) {
      case 'GET requests':
        return ok({ requests });
      case 'GET events':
        return ok({ events: log.all() });
      case 'POST events': {
        const list = json().events;
        if (!Array.isArray(list)) return { status: 400, body: responseStatus(false, 'badJsonContent', 'events') };
        return ok({ events: sim.addEvents(list as NewSimEvent[]) });
      }
      case 'GET state':
        return ok({
          auth: auth.stats,
          firmware,
          deviceTime: deviceTime(),
          serialNumber: device.serialNumber,
          events: log.all().length,
          streams: streams.size,
          streamsOpened,
        });
      case 'POST drop-streams':
        sim.dropStreams();
        return ok({ streams: 0 });
      case 'POST write-fault': {
        const f = json();
        const after = Number(f.after);
        sim.setWriteFault(
          Number.isInteger(after) && after >= 0 ? { after, mode: f.mode === 'drop' ? 'drop' : 'error' } : null,
        );
        return ok({ writeFault });
      }
      case 'GET posts':
        return ok({ posts: poster.stats(), httpHosts: poster.httpHosts() });
      case 'POST http-host': {
        const h = json();
        if (h.format === 'json' || h.format === 'multipart' || h.format === 'xml')
          sim.setListenFormat(h.format as ListenFormat);
        if (h.url !== undefined) sim.setHttpHost(typeof h.url === 'string' && URL.canParse(h.url) ? h.url : null);
        return ok({ httpHosts: poster.httpHosts() });
      }
      case 'POST firmware':
        sim.setFirmware(json() as Partial<HikFirmware>);
        return ok({ firmware });
      default:
        return { status: 404, body: responseStatus(false, 'notSupport', `${method} /__sim/${route}`) };
    }
  };

  const state: SimState = {
    auth,
    log,
    people,
    firmware,
    device,
    utcOffset,
    deviceTime,
    setDeviceTime: (local) => {
      const t = epochOf(local, utcOffset);
      if (!Number.isFinite(t)) return false;
      clockOffsetMs = t - now();
      return true;
    },
    record: (r) => {
      if (!logRequests) return;
      if (requests.length >= MAX_LOGGED_REQUESTS) requests.shift();
      requests.push({ at: now(), ...r });
    },
    openStream: (res) => {
      streamsOpened++;
      res.writeHead(200, { 'content-type': `multipart/mixed; boundary=${BOUNDARY}`, connection: 'keep-alive' });
      res.flushHeaders();
      if (firmware.streamFault) return streamFault(res, firmware);
      if (firmware.streamReplay) {
        // The whole stored log again, before anything new (seen on every reconnect of some firmware).
        for (const e of log.all()) res.write(alertPart(eventAlert(e, false), firmware));
      }
      streams.add(res);
      res.on('close', () => streams.delete(res));
    },
    admin,
    poster,
    userWrite: () => {
      if (writeFault && writesDone >= writeFault.after) return writeFault.mode;
      writesDone++;
      return 'ok';
    },
  };

  const onRequest = (req: Parameters<typeof handle>[1], res: ServerResponse) => {
    handle(state, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  };
  const server: Server = o.tls ? createHttps({ cert: o.tls.cert, key: o.tls.key }, onRequest) : createHttp(onRequest);
  const sockets = openSockets(server);
  const heartbeat = setInterval(() => {
    const part = alertPart(
      {
        ipAddress: '127.0.0.1',
        dateTime: deviceTime(),
        eventType: 'videoloss',
        eventState: 'inactive',
      },
      firmware,
    );
    for (const res of streams) res.write(part);
  }, o.heartbeatMs ?? 10_000);
  heartbeat.unref();

  const port = await listenPort(server, o.host ?? '127.0.0.1', o.port ?? 0);
  const host = o.host ?? '127.0.0.1';
  return {
    ...sim,
    port,
    url: `${o.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    stop: async () => {
      clearInterval(heartbeat);
      poster.stop();
      sim.dropStreams();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
