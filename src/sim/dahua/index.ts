/**
 * Dahua access terminal simulator (HTTP CGI, Digest MD5 and/or SHA-256): identity and clock
 * (magicBox.cgi, global.cgi), the access-record log (recordFinder.cgi, oldest first, pages capped
 * by the firmware, the time window as StartTime/EndTime or only as condition.StartTime/EndTime),
 * the event stream (eventManager.cgi attach, multipart with heartbeats), the users (AccessUser.cgi
 * and AccessCard.cgi on newer firmware, recordUpdater.cgi on older), and fault switches: a
 * restart that numbers records from 1 again, a cleared log, slow answers, an endless or huge
 * record answer, hostile texts. Used by `punchgate sim dahua`, the tests and the bench.
 *
 * Sources of the formats: Dahua's HTTP API for access control products; the open clients
 * horilla-opensource/horilla (biometric/dahua.py: the record's key map, recordUpdater insert),
 * home-assistant Dahua integrations and other clients' parsers of the event stream
 * (`Code=AccessControl;action=Pulse;index=0;data={...}`, `Heartbeat`), and the AccessUser.cgi
 * insertMulti bodies of several open projects (UserList with UserID, UserName, UserType,
 * Authority, Doors, ValidFrom, ValidTo).
 */
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { listenPort, openSockets } from '../http-server.js';
import { DahuaDigest, type DahuaAuthStats, type DigestOffer } from './digest.js';
import { cutInMiddleUserId, recordLines, type NewRecord, type SimRecord } from './records.js';
import { SimUsers, type SimUser } from './users.js';

export { HOSTILE_RECORDS, type NewRecord, type SimRecord } from './records.js';
export type { DigestOffer } from './digest.js';
export type { SimUser } from './users.js';

export const DEFAULT_DAHUA_SERIAL = '7G0C1E2PAZ00042';
export const DEFAULT_DAHUA_PASSWORD = 'Sim-dahua-1';
const BOUNDARY = 'myboundary';

export interface DahuaFaults {
  /** Every answer waits this long first. */
  slowMs: number;
  /**
   * The record search answers for ever (endless), with `hugeMb` of lines (huge), or with its text
   * cut in the middle of its middle record's UserID (cut: firmware whose answer buffer is smaller than the page).
   */
  search: 'endless' | 'huge' | 'cut' | null;
  hugeMb: number;
  /** The device clock minus the true time, in seconds (a clock set back: negative). */
  clockOffsetSeconds: number;
}

export interface DahuaSimOptions {
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  serial?: string;
  deviceType?: string;
  /** The device's UTC offset in minutes (its wall clock). */
  utcOffsetMinutes?: number;
  digest?: DigestOffer;
  userApi?: 'accessUser' | 'recordUpdater';
  /** `condition`: the record search answers the plain StartTime/EndTime with 400. */
  timeCondition?: 'plain' | 'condition';
  /** Records per answer at most, whatever `count` asks. */
  pageCap?: number;
  records?: NewRecord[];
  users?: SimUser[];
  tls?: { cert: string; key: string };
}

export interface DahuaSim {
  url: string;
  port: number;
  serial: string;
  /** Appends records (time: now on the device clock) and tells attached streams. */
  addRecords(rs: NewRecord[]): SimRecord[];
  records(): SimRecord[];
  users(): SimUser[];
  faults(patch?: Partial<DahuaFaults>): DahuaFaults;
  /** A restart: streams dropped, records numbered from 1 again (the log stays). */
  restart(): void;
  /** The log cleared (numbering from 1). */
  clear(): void;
  /** Digest answered under another realm from now on, the nonces given before forgotten (a firmware update, a reset). */
  setRealm(realm: string): void;
  /** The device's wall clock now, as its records' seconds. */
  nowSeconds(): number;
  auth(): DahuaAuthStats;
  /** Record searches answered, streams attached, requests in all. */
  counts(): { finds: number; attaches: number; requests: number; streams: number };
  stop(): Promise<void>;
}

/** Seconds of the device wall clock, read as UTC. */
const deviceSeconds = (offsetMin: number, skew = 0) => Math.floor(Date.now() / 1000) + offsetMin * 60 + skew;

function wall(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

export async function startDahuaSim(o: DahuaSimOptions = {}): Promise<DahuaSim> {
  const serial = o.serial ?? DEFAULT_DAHUA_SERIAL;
  const offset = o.utcOffsetMinutes ?? -new Date().getTimezoneOffset();
  const pageCap = o.pageCap ?? 1024;
  const digest = new DahuaDigest({
    username: o.username ?? 'admin',
    password: o.password ?? DEFAULT_DAHUA_PASSWORD,
    realm: `Login to ${serial}`,
    offer: o.digest ?? 'both',
    lockoutAfter: 5,
  });
  const faults: DahuaFaults = { slowMs: 0, search: null, hugeMb: 8, clockOffsetSeconds: 0 };
  let log: SimRecord[] = [];
  let nextRecNo = 1;
  const counts = { finds: 0, attaches: 0, requests: 0 };
  const streams = new Set<ServerResponse>();
  const users = new SimUsers(o.userApi ?? 'accessUser', o.users ?? []);

  const eventPart = (r: SimRecord) => {
    const data = JSON.stringify({
      CardNo: r.CardNo,
      Door: r.Door,
      ErrorCode: r.ErrorCode,
      Method: r.Method,
      Name: r.CardName,
      ReaderID: '1',
      RecNo: r.RecNo,
      Status: r.Status,
      Type: r.Type,
      UTC: typeof r.CreateTime === 'number' ? r.CreateTime - offset * 60 : 0,
      UserID: r.UserID,
      AttendanceState: r.AttendanceState,
    });
    const body = `Code=AccessControl;action=Pulse;index=0;data=${data}\r\n`;
    return `--${BOUNDARY}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };

  const add = (rs: NewRecord[]): SimRecord[] => {
    const now = deviceSeconds(offset, faults.clockOffsetSeconds);
    const made = rs.map((r, i): SimRecord => ({
      RecNo: nextRecNo++,
      CreateTime: r.CreateTime ?? now,
      UserID: r.UserID ?? `${1000 + (i % 50)}`,
      CardNo: r.CardNo ?? '',
      CardName: r.CardName ?? '',
      Type: r.Type ?? 'Entry',
      Method: r.Method ?? 15,
      Status: r.Status ?? 1,
      ErrorCode: r.ErrorCode ?? 0,
      AttendanceState: r.AttendanceState ?? 0,
      Door: r.Door ?? 0,
    }));
    log.push(...made);
    for (const s of streams) for (const r of made) s.write(eventPart(r));
    return made;
  };
  if (o.records) add(o.records);

  const send = (res: ServerResponse, status: number, text: string, type = 'text/plain;charset=utf-8') => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const badRequest = (res: ServerResponse) => send(res, 400, 'Error\r\nBad Request!\r\n');

  const findRecords = (q: URLSearchParams, res: ServerResponse) => {
    counts.finds++;
    if (o.timeCondition === 'condition' && (q.has('StartTime') || q.has('EndTime'))) return badRequest(res);
    const p = o.timeCondition === 'condition' ? 'condition.' : '';
    const start = Number(q.get(`${p}StartTime`) ?? 0);
    const end = Number(q.get(`${p}EndTime`) ?? 2 ** 31);
    const count = Math.min(Number(q.get('count') ?? 1024) || 1024, pageCap);
    if (faults.search === 'endless') {
      res.writeHead(200, { 'content-type': 'text/plain;charset=utf-8' });
      let i = 0;
      const more = () => {
        if (res.destroyed) return;
        res.write(`records[${i}].RecNo=${i + 1}\r\nrecords[${i}].UserID=E${i}\r\n`);
        i++;
        setTimeout(more, 50).unref();
      };
      more();
      return;
    }
    if (faults.search === 'huge') {
      res.writeHead(200, { 'content-type': 'text/plain;charset=utf-8' });
      const line = Buffer.alloc(64 * 1024, 0x41);
      let left = faults.hugeMb * 16;
      const more = () => {
        while (left > 0 && !res.destroyed) {
          left--;
          if (!res.write(line)) return void res.once('drain', more);
        }
        res.end();
      };
      res.write('found=1\r\nrecords[0].Note=');
      more();
      return;
    }
    const rows = log
      .filter((r) => {
        // A wall-clock text (as Intelbras firmware writes it) is searched by that wall clock; other text matches every window.
        const t = typeof r.CreateTime === 'number' ? r.CreateTime : wallSeconds(r.CreateTime);
        return t === undefined || (t >= start && t <= end);
      })
      .slice(0, count);
    const text = recordLines(rows, offset);
    send(res, 200, faults.search === 'cut' ? cutInMiddleUserId(text, rows.length) : text);
  };

  const attach = (res: ServerResponse, q: URLSearchParams) => {
    counts.attaches++;
    res.writeHead(200, { 'content-type': `multipart/x-mixed-replace; boundary=${BOUNDARY}` });
    // The head goes at once, as a device sends it, not with the first heartbeat seconds later.
    res.flushHeaders();
    streams.add(res);
    const hb = Math.max(1, Number(q.get('heartbeat') ?? 5)) * 1000;
    const timer = setInterval(() => {
      res.write(`--${BOUNDARY}\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nHeartbeat\r\n`);
    }, hb);
    res.on('close', () => {
      clearInterval(timer);
      streams.delete(res);
    });
  };

  const route = async (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const q = url.searchParams;
    const action = q.get('action');
    const path = url.pathname;
    if (path.startsWith('/__sim/')) return admin(path.slice(7), req.method ?? 'GET', body, res);
    counts.requests++;
    const auth = digest.check(req.method ?? 'GET', req.headers);
    if (auth !== 'ok') {
      res.writeHead(401, { 'www-authenticate': digest.challenge(), 'content-type': 'text/plain' });
      res.end(auth === 'locked' ? 'Error\r\nAccount locked\r\n' : 'Error\r\nUnauthorized\r\n');
      return;
    }
    if (faults.slowMs > 0) await new Promise((r) => setTimeout(r, faults.slowMs));
    if (path === '/cgi-bin/magicBox.cgi') {
      if (action === 'getSerialNo') return send(res, 200, `sn=${serial}\r\n`);
      if (action === 'getDeviceType') return send(res, 200, `type=${o.deviceType ?? 'ASI7213X-T1'}\r\n`);
      if (action === 'getSoftwareVersion') return send(res, 200, 'version=1.000.0000000.7.R,build:2023-06-01\r\n');
      return badRequest(res);
    }
    if (path === '/cgi-bin/global.cgi' && action === 'getCurrentTime')
      return send(res, 200, `result=${wall(deviceSeconds(offset, faults.clockOffsetSeconds))}\r\n`);
    if (path === '/cgi-bin/recordFinder.cgi') {
      if (q.get('name') === 'AccessControlCardRec') {
        if (action === 'getQuerySize') return send(res, 200, `count=${log.length}\r\n`);
        if (action === 'find') return findRecords(q, res);
      }
      if (q.get('name') === 'AccessControlCard' && action === 'find') {
        if (users.api !== 'recordUpdater') return badRequest(res);
        return send(res, 200, users.cardRecordLines());
      }
      return badRequest(res);
    }
    if (path === '/cgi-bin/eventManager.cgi' && action === 'attach') return attach(res, q);
    const answer = users.handle(path, action ?? '', q, body);
    if (answer) return send(res, answer.status, answer.text, answer.type);
    return badRequest(res);
  };

  const admin = (what: string, method: string, body: string, res: ServerResponse) => {
    const json = (v: unknown) => send(res, 200, JSON.stringify(v), 'application/json');
    const parsed = () => (body ? (JSON.parse(body) as unknown) : undefined);
    if (what === 'state')
      return json({ records: log.length, nextRecNo, counts: sim.counts(), auth: digest.stats, faults });
    if (what === 'records' && method === 'POST') return json(add(parsed() as NewRecord[]));
    if (what === 'records') return json(log);
    if (what === 'users') return json(users.list());
    if (what === 'faults') return json(sim.faults(parsed() as Partial<DahuaFaults>));
    if (what === 'restart') return (sim.restart(), json({ ok: true }));
    if (what === 'clear') return (sim.clear(), json({ ok: true }));
    send(res, 404, 'no such admin route');
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      route(req, res, Buffer.concat(chunks).toString('utf8')).catch((e: unknown) => {
        if (!res.headersSent) send(res, 500, `Error\r\n${String(e)}\r\n`);
        else res.destroy();
      });
    });
  };
  const server: Server = o.tls ? createHttps({ cert: o.tls.cert, key: o.tls.key }, handler) : createHttp(handler);
  const sockets = openSockets(server);
  const port = await listenPort(server, o.host ?? '127.0.0.1', o.port ?? 0);
  const sim: DahuaSim = {
    url: `${o.tls ? 'https' : 'http'}://${o.host ?? '127.0.0.1'}:${port}`,
    port,
    serial,
    addRecords: add,
    records: () => [...log],
    users: () => users.list(),
    faults: (patch) => Object.assign(faults, patch ?? {}),
    restart: () => {
      nextRecNo = 1;
      for (const s of streams) s.destroy();
      for (const s of sockets) s.destroy();
    },
    clear: () => {
      log = [];
      nextRecNo = 1;
    },
    setRealm: (realm) => digest.setRealm(realm),
    nowSeconds: () => deviceSeconds(offset, faults.clockOffsetSeconds),
    auth: () => ({ ...digest.stats }),
    counts: () => ({ ...counts, streams: streams.size }),
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return sim;
}

/** Records of `passes` people's passes, `everySeconds` apart, ending `endSeconds` (device seconds), with refused tries among them. */
export function generateRecords(n: number, endSeconds: number, everySeconds = 7, people = 50): NewRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    CreateTime: endSeconds - (n - i) * everySeconds,
    UserID: `${1000 + (i % people)}`,
    CardName: `Person ${1000 + (i % people)}`,
    CardNo: i % 3 === 0 ? `${4_000_000 + (i % people)}` : '',
    Type: i % 2 ? 'Exit' : 'Entry',
    Method: i % 3 === 0 ? 1 : 15,
    Status: i % 10 === 9 ? 0 : 1,
    ErrorCode: i % 10 === 9 ? 16 : 0,
    // Sign in (1) and sign out (4), as the device numbers them; now and then none pressed.
    AttendanceState: i % 4 === 0 ? 0 : i % 2 ? 4 : 1,
  }));
}

/** `2026-05-15 10:14:27` as seconds read as UTC (the device's wall clock), else undefined. */
function wallSeconds(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000 : undefined;
}
