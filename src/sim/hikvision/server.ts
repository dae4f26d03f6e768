import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DigestServer } from './digest-auth.js';
import type { EventLog, SearchCond } from './event-log.js';
import { httpHostsXml, parseHttpHosts, type HttpPoster } from './http-listening.js';
import { responseStatus, type Answer, type People } from './people.js';
import type { HikFirmware, JsonLayout, SimEvent, SimRequest } from './types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Everything the request handler works on; built by startHikvisionSim. */
export interface SimState {
  auth: DigestServer;
  log: EventLog;
  people: People;
  firmware: HikFirmware;
  device: { serialNumber: string; model: string; firmwareVersion: string; macAddress: string };
  utcOffset: string;
  deviceTime: () => string;
  setDeviceTime: (localTime: string) => boolean;
  record: (r: Omit<SimRequest, 'at'>) => void;
  openStream: (res: ServerResponse) => void;
  admin: (method: string, route: string, body: Buffer) => Answer;
  /** Whether the next user write goes through, fails with an error answer, or loses its connection. */
  userWrite: () => 'ok' | 'error' | 'drop';
  /** HTTP Listening: the httpHosts and the posts of new events. */
  poster: HttpPoster;
}

/** An XML ResponseStatus, as ISAPI answers an XML write. */
function xmlStatus(ok: boolean, sub = 'ok'): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<ResponseStatus version="2.0" xmlns="http://www.isapi.org/ver20/XMLSchema">',
    '<requestURL>/ISAPI/Event/notification/httpHosts</requestURL>',
    `<statusCode>${ok ? 1 : 6}</statusCode>`,
    `<statusString>${ok ? 'OK' : 'Invalid Content'}</statusString>`,
    `<subStatusCode>${sub}</subStatusCode>`,
    '</ResponseStatus>',
    '',
  ].join('\r\n');
}

/** Requests that change the people on the device (the write fault switch applies to them). */
const USER_WRITES = new Set([
  'PUT /ISAPI/AccessControl/UserInfo/SetUp',
  'POST /ISAPI/AccessControl/UserInfo/Record',
  'PUT /ISAPI/AccessControl/UserInfo/Modify',
  'PUT /ISAPI/AccessControl/UserInfoDetail/Delete',
  'PUT /ISAPI/AccessControl/CardInfo/SetUp',
  'PUT /ISAPI/AccessControl/CardInfo/Delete',
]);

const MAX_BODY = 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks)));
    req.on('error', () => resolve(null));
  });
}

/** JSON as the firmware lays it out: compact, indented, or with TABs as cJSON writes it (`"key":<TAB>value`). */
export function jsonText(body: unknown, layout: JsonLayout = 'compact'): string {
  if (layout === 'compact') return JSON.stringify(body);
  if (layout === 'indent') return JSON.stringify(body, null, 2);
  return JSON.stringify(body, null, '\t').replace(/^(\t*"(?:[^"\\]|\\.)*"): /gm, '$1:\t');
}

function send(res: ServerResponse, a: Answer, extraHeaders: Record<string, string> = {}, layout?: JsonLayout): void {
  if (res.destroyed) return;
  const text = jsonText(a.body, layout);
  res.writeHead(a.status, {
    'content-type': 'application/json; charset="UTF-8"',
    'content-length': Buffer.byteLength(text),
    ...extraHeaders,
  });
  res.end(text);
}

function sendText(
  res: ServerResponse,
  status: number,
  type: string,
  text: string,
  headers: Record<string, string> = {},
) {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

const bad = (sub: string, msg: string): Answer => ({ status: 400, body: responseStatus(false, sub, msg) });
const notFound: Answer = {
  status: 404,
  body: { statusCode: 4, statusString: 'Invalid Operation', subStatusCode: 'notSupport' },
};

/** POSIX-style zone text of a UTC offset, as devices show it: +05:30 -> CST-5:30:00. */
export function deviceTimeZone(offset: string): string {
  const m = /^([+-])(\d{2})(?::?(\d{2}))?$/.exec(offset);
  if (!m) return 'CST+0:00:00';
  return `CST${m[1] === '+' ? '-' : '+'}${Number(m[2])}:${m[3] ?? '00'}:00`;
}

function eventRow(e: SimEvent): Json {
  const { extra, ...row } = e;
  return { ...row, type: 0, ...extra };
}

/** deviceInfo in XML, as some firmware answers even when JSON was asked (one element a line, CRLF). */
function deviceInfoXml(d: SimState['device']): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<DeviceInfo version="2.0" xmlns="http://www.isapi.org/ver20/XMLSchema">',
    '<deviceName>Access Controller</deviceName>',
    '<deviceID>255</deviceID>',
    `<model>${d.model}</model>`,
    `<serialNumber>${d.serialNumber}</serialNumber>`,
    `<macAddress>${d.macAddress}</macAddress>`,
    `<firmwareVersion>${d.firmwareVersion}</firmwareVersion>`,
    '<firmwareReleasedDate>build 220210</firmwareReleasedDate>',
    '<deviceType>ACS</deviceType>',
    '<manufacturer>hikvision</manufacturer>',
    '</DeviceInfo>',
    '',
  ].join('\r\n');
}

/** A page padded with blanks to `bytes`, sent in chunks without Content-Length (a device that does not stop). */
function sendHuge(res: ServerResponse, body: Json, bytes: number): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json; charset="UTF-8"' });
  const blank = Buffer.alloc(64 * 1024, 0x20);
  let left = Math.max(0, bytes - Buffer.byteLength(text));
  res.write('{"AcsEvent":');
  const more = () => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, blank.length);
      left -= n;
      if (!res.write(blank.subarray(0, n))) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end(`${text.slice('{"AcsEvent":'.length)}`);
  };
  more();
}

function eventSearch(s: SimState, body: Json): { answer: Answer; cond?: Json } {
  const c = isObject(body.AcsEventCond) ? body.AcsEventCond : undefined;
  if (!c) return { answer: bad('badJsonContent', 'AcsEventCond') };
  const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
  const position = int(c.searchResultPosition);
  const max = int(c.maxResults);
  const major = int(c.major) ?? 0;
  const minor = int(c.minor) ?? 0;
  if (typeof c.searchID !== 'string' || position === undefined || position < 0 || max === undefined || max < 1) {
    return { answer: bad('badParameters', 'searchID/searchResultPosition/maxResults'), cond: c };
  }
  const hasSerial = c.beginSerialNo !== undefined || c.endSerialNo !== undefined;
  if (hasSerial && s.firmware.serialFilters === 'refuse') {
    return { answer: bad('badParameters', 'beginSerialNo'), cond: c };
  }
  const end = int(c.endSerialNo);
  if (end !== undefined && s.firmware.endSerialMax !== null && end > s.firmware.endSerialMax) {
    return { answer: bad('badJsonContent', 'endSerialNo'), cond: c };
  }
  const cond: SearchCond = { major, minor };
  if (int(c.beginSerialNo) !== undefined) cond.beginSerialNo = int(c.beginSerialNo);
  if (int(c.endSerialNo) !== undefined) cond.endSerialNo = int(c.endSerialNo);
  if (typeof c.startTime === 'string') cond.startTime = c.startTime;
  if (typeof c.endTime === 'string') cond.endTime = c.endTime;
  let { rows, total } = s.log.search(c.searchID, cond, position, max, s.firmware);
  let more = position + rows.length < total;
  const fault = s.firmware.searchFault;
  const cap = Math.min(max, s.firmware.pageCap);
  if ((fault === 'repeat' || fault === 'fresh') && !more && total > 0) {
    // The real rows first; then, where the search has ended, MORE for ever.
    more = true;
    if (rows.length === 0 && fault === 'repeat') {
      rows = s.log.search(c.searchID, cond, Math.max(0, total - cap), cap, s.firmware).rows;
    } else if (rows.length === 0) {
      const first = Math.max(cond.beginSerialNo ?? 0, s.log.next) + (position - total);
      rows = Array.from({ length: cap }, (_, i) => ({
        serialNo: first + i,
        major: 5,
        minor: 21,
        time: s.deviceTime(),
        doorNo: 1,
        currentVerifyMode: 'invalid',
      }));
    }
    // A total that keeps growing, for a device that does not end.
    if (fault === 'fresh') total = position + rows.length + 2 * cap;
  }
  return {
    cond: c,
    answer: {
      status: 200,
      body: {
        AcsEvent: {
          searchID: c.searchID,
          responseStatusStrg: total === 0 ? 'NO MATCH' : more ? 'MORE' : 'OK',
          numOfMatches: rows.length,
          totalMatches: total,
          ...(rows.length ? { InfoList: rows.map(eventRow) } : {}),
        },
      },
    },
  };
}

function parseJson(body: Buffer): Json | undefined {
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Routes one request: the admin API without auth, everything else behind Digest. */
export async function handle(s: SimState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim');
  const method = req.method ?? 'GET';
  const path = url.pathname;
  const body = await readBody(req);
  if (body === null) return send(res, bad('badJsonContent', 'body too large'));

  if (path.startsWith('/__sim/')) {
    const a = s.admin(method, path.slice('/__sim/'.length), body);
    s.record({ method, path, status: a.status, auth: 'admin' });
    return send(res, a);
  }

  const auth = s.auth.check(method, req.headers);
  if (!auth.ok) {
    s.record({ method, path, status: 401, auth: auth.kind });
    return sendText(res, 401, 'application/xml', auth.body, auth.headers);
  }

  const json = () => parseJson(body) ?? {};
  let answer: Answer | undefined;
  let cond: Json | undefined;
  const route = `${method} ${path}`;
  const fault = USER_WRITES.has(route) ? s.userWrite() : 'ok';
  if (fault === 'drop') {
    s.record({ method, path, status: 0, auth: 'ok' });
    req.socket.destroy();
    return;
  }
  if (fault === 'error') {
    s.record({ method, path, status: 500, auth: 'ok' });
    return send(res, { status: 500, body: responseStatus(false, 'deviceError', 'simulated write fault') });
  }
  if (/^\/ISAPI\/Event\/notification\/httpHosts(\/\d+)?$/.test(path) && (method === 'GET' || method === 'PUT')) {
    if (method === 'GET') {
      s.record({ method, path, status: 200, auth: 'ok' });
      return sendText(res, 200, 'application/xml', httpHostsXml(s.poster.httpHosts()));
    }
    const hosts = parseHttpHosts(body.toString('utf8'));
    s.record({ method, path, status: hosts ? 200 : 400, auth: 'ok' });
    if (!hosts) return sendText(res, 400, 'application/xml', xmlStatus(false, 'badXmlContent'));
    s.poster.setHosts(hosts);
    return sendText(res, 200, 'application/xml', xmlStatus(true));
  }
  switch (route) {
    case 'GET /ISAPI/System/deviceInfo':
      if (s.firmware.deviceInfoXml) {
        s.record({ method, path, status: 200, auth: 'ok' });
        return sendText(res, 200, 'application/xml', deviceInfoXml(s.device));
      }
      answer = {
        status: 200,
        body: {
          DeviceInfo: {
            deviceName: 'Access Controller',
            deviceID: '1',
            model: s.device.model,
            serialNumber: s.device.serialNumber,
            macAddress: s.device.macAddress,
            firmwareVersion: s.device.firmwareVersion,
            firmwareReleasedDate: 'build 230101',
            deviceType: 'ACS',
          },
        },
      };
      break;
    case 'GET /ISAPI/System/time':
      answer = {
        status: 200,
        body: { Time: { timeMode: 'manual', localTime: s.deviceTime(), timeZone: deviceTimeZone(s.utcOffset) } },
      };
      break;
    case 'PUT /ISAPI/System/time': {
      const text = body.toString('utf8');
      const local = /<localTime>([^<]+)</.exec(text)?.[1] ?? (parseJson(body)?.Time as Json | undefined)?.localTime;
      answer =
        typeof local === 'string' && s.setDeviceTime(local)
          ? { status: 200, body: responseStatus(true) }
          : bad('badXmlContent', 'localTime');
      break;
    }
    case 'GET /ISAPI/AccessControl/AcsEvent/capabilities':
      answer = {
        status: 200,
        body: {
          AcsEvent: {
            AcsEventCond: {
              searchID: { '@min': 1, '@max': 32 },
              maxResults: { '@min': 1, '@max': s.firmware.pageCap },
              major: { '@opt': '0,1,2,3,5' },
              ...(s.firmware.serialFilters === 'yes'
                ? {
                    beginSerialNo: { '@min': 0, '@max': s.firmware.advertisedEndSerialMax },
                    endSerialNo: { '@min': 0, '@max': s.firmware.advertisedEndSerialMax },
                  }
                : {}),
            },
          },
        },
      };
      break;
    case 'POST /ISAPI/AccessControl/AcsEvent':
      if (!s.firmware.eventSearch) {
        answer = notFound;
        break;
      }
      ({ answer, cond } = eventSearch(s, json()));
      if (s.firmware.searchFault === 'huge' && answer.status === 200) {
        s.record({ method, path, status: 200, auth: 'ok', ...(cond ? { cond } : {}) });
        return sendHuge(res, answer.body, s.firmware.hugePageBytes);
      }
      break;
    case 'POST /ISAPI/AccessControl/AcsEventTotalNum': {
      const c = json().AcsEventTotalNumCond;
      const n = isObject(c)
        ? s.log.search('total', { major: Number(c.major ?? 0), minor: Number(c.minor ?? 0) }, 0, 1, s.firmware).total
        : 0;
      answer = { status: 200, body: { AcsEventTotalNum: { totalNum: n } } };
      break;
    }
    case 'POST /ISAPI/AccessControl/UserInfo/Search':
      answer = s.people.searchUsers(json(), s.firmware.endlessUserSearch);
      break;
    case 'GET /ISAPI/AccessControl/UserInfo/Count':
      answer = s.people.count();
      break;
    case 'PUT /ISAPI/AccessControl/UserInfo/SetUp':
      answer = s.people.setUp(json(), 'setUp');
      break;
    case 'POST /ISAPI/AccessControl/UserInfo/Record':
      answer = s.people.setUp(json(), 'record');
      break;
    case 'PUT /ISAPI/AccessControl/UserInfo/Modify':
      answer = s.people.setUp(json(), 'modify');
      break;
    case 'PUT /ISAPI/AccessControl/UserInfoDetail/Delete':
      answer = s.people.deleteUsers(json());
      break;
    case 'GET /ISAPI/AccessControl/UserInfoDetail/DeleteProcess':
      answer = { status: 200, body: { UserInfoDetail: { status: 'success' } } };
      break;
    case 'POST /ISAPI/AccessControl/CardInfo/Search':
      answer = s.people.searchCards(json());
      break;
    case 'PUT /ISAPI/AccessControl/CardInfo/SetUp':
      answer = s.people.setUpCard(json());
      break;
    case 'PUT /ISAPI/AccessControl/CardInfo/Delete':
      answer = s.people.deleteCards(json());
      break;
    case 'GET /ISAPI/Event/notification/alertStream':
      s.record({ method, path, status: 200, auth: 'ok' });
      s.openStream(res);
      return;
    default:
      answer = notFound;
  }
  s.record({ method, path, status: answer.status, auth: 'ok', ...(cond ? { cond } : {}) });
  send(res, answer, {}, s.firmware.jsonLayout);
}
