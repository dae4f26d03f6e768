import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DigestServer } from './digest-auth.js';
import type { EventLog, SearchCond } from './event-log.js';
import { responseStatus, type Answer, type People } from './people.js';
import type { HikFirmware, SimEvent, SimRequest } from './types.js';

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

function send(res: ServerResponse, a: Answer, extraHeaders: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const text = JSON.stringify(a.body);
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
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(offset);
  if (!m) return 'CST+0:00:00';
  return `CST${m[1] === '+' ? '-' : '+'}${Number(m[2])}:${m[3]}:00`;
}

function eventRow(e: SimEvent): Json {
  return { ...e, type: 0 };
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
  const cond: SearchCond = { major, minor };
  if (int(c.beginSerialNo) !== undefined) cond.beginSerialNo = int(c.beginSerialNo);
  if (int(c.endSerialNo) !== undefined) cond.endSerialNo = int(c.endSerialNo);
  if (typeof c.startTime === 'string') cond.startTime = c.startTime;
  if (typeof c.endTime === 'string') cond.endTime = c.endTime;
  const { rows, total } = s.log.search(c.searchID, cond, position, max, s.firmware);
  const more = position + rows.length < total;
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
  switch (route) {
    case 'GET /ISAPI/System/deviceInfo':
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
                ? { beginSerialNo: { '@min': 0, '@max': 4294967295 }, endSerialNo: { '@min': 0, '@max': 4294967295 } }
                : {}),
            },
          },
        },
      };
      break;
    case 'POST /ISAPI/AccessControl/AcsEvent':
      ({ answer, cond } = eventSearch(s, json()));
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
      answer = s.people.searchUsers(json());
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
  send(res, answer);
}
