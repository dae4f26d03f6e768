import { randomUUID } from 'node:crypto';
import { HikApiError } from './errors.js';
import { HikHttp, type HikHttpOptions, type HikResponse } from './http.js';
import { escapeXml, expectJson, expectOk, field, isObject, jsonOf, type Json } from './isapi.js';
import { HikUsers } from './users.js';

/**
 * HikvisionClient: the ISAPI requests punchgate makes to one access-control terminal
 * (DS-K1T...): identity, clock, the event search, and (through `users`) the people on it.
 * Everything goes through one keep-alive connection with Digest authentication.
 */

export interface DeviceInfo {
  serialNumber: string;
  model: string;
  firmwareVersion: string;
  deviceName: string;
  /** The network card's address (`44:19:b6:...`), '' when not said: a pushed event carries it too. */
  macAddress: string;
}

export interface DeviceTime {
  /** The device's wall clock, `YYYY-MM-DD HH:mm:ss`. */
  wallClock: string;
  /** The offset the device put on it (`+01:00`, `Z`), '' when it gave none. */
  offset: string;
  /** The device's own time zone setting (e.g. `CST-1:00:00`), kept when the clock is set. */
  timeZone: string;
  timeMode: string;
}

/** One AcsEvent search condition (major 5, minor 0 = every minor of major 5). */
export interface EventQuery {
  major: number;
  minor: number;
  beginSerialNo?: number;
  endSerialNo?: number;
  startTime?: string;
  endTime?: string;
  /** What we ask for; devices return at most about 30 rows a page whatever this says. */
  maxResults?: number;
}

export interface EventPage {
  /** MORE: ask again; OK: the last page; NO MATCH: nothing. */
  status: string;
  numOfMatches: number;
  /** What the device says the whole search holds, when it says. */
  totalMatches: number | undefined;
  rows: Json[];
}

/** What the device's event search capabilities say about serial-number filters. */
export interface EventSearchCapabilities {
  /** Whether it lists beginSerialNo among the search's conditions; undefined when it does not answer. */
  serialFilters: boolean | undefined;
  /** The largest endSerialNo it says it accepts, when it says. */
  endSerialMax: number | undefined;
}

/**
 * `2026-11-02T07:58:01+01:00` -> wall clock and offset; undefined when it is not such a time.
 * The forms real terminals write: `+07:00`, `-00:00`, `Z`, `+0530`, `00:00` (a zero offset without
 * its sign, see extendedOffset), no offset (published captures:
 * creatorsgarten/garden-gate HIKVISION.md, pergolafabio/Hikvision-Addons#177, the Hikvision
 * listening samples). ISO 8601 also allows an offset of hours only (`+05`): it is the same
 * offset as `+05:00` and is read as that, so a firmware writing it is not quarantined; the
 * one place every Hikvision time is read (search, alert stream, HTTP listening, the clock).
 */
export function splitIsoTime(s: unknown): { wallClock: string; offset: string } | undefined {
  if (typeof s !== 'string') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.\d+)?\s*(Z|[+-]\d{2}(?::?\d{2})?|00:00)?$/.exec(s.trim());
  return m ? { wallClock: `${m[1]} ${m[2]}`, offset: extendedOffset(m[3] ?? '') } : undefined;
}

/**
 * `+05` -> `+05:00` (ISO 8601's hours-only offset); `00:00` (a zero offset that lost its sign:
 * `2024-01-22T11:46:3100:00`, as a Hikvision firmware wrote its dateTime in
 * Supergiovane/node-red-contrib-hikvision-ultimate#59) -> `+00:00`; every other offset as the
 * device wrote it. Only the zero offset is read without a sign: any other would be a guess.
 */
function extendedOffset(offset: string): string {
  if (offset === '00:00') return '+00:00';
  return /^[+-]\d{2}$/.test(offset) ? `${offset}:00` : offset;
}

/**
 * Fault codes of an event search the device does not end: `MORE` without rows, `MORE` past the
 * matches it said it has, the same page again. What was read before stands (see event-reader).
 */
export const SEARCH_FAULTS = new Set(['emptyMore', 'endlessMore', 'repeatedPage']);
/** Pages remembered to notice a device sending one of them again. */
const PAGES_REMEMBERED = 64;

export const EVENTS_PATH = '/ISAPI/AccessControl/AcsEvent?format=json';
export const PAGE_REQUEST = 30;

export class HikvisionClient {
  readonly users: HikUsers;

  private constructor(readonly http: HikHttp) {
    this.users = new HikUsers(http);
  }

  /** Loads the HTTP client (see HikHttp) and prepares the connection; nothing is sent yet. */
  static async open(opts: HikHttpOptions): Promise<HikvisionClient> {
    return new HikvisionClient(await HikHttp.open(opts));
  }

  get peer(): string {
    return this.http.peer;
  }

  private async get(path: string, signal?: AbortSignal): Promise<HikResponse> {
    return expectOk(await this.http.request('GET', path, { signal }), path);
  }

  async deviceInfo(signal?: AbortSignal): Promise<DeviceInfo> {
    const res = await this.get('/ISAPI/System/deviceInfo?format=json', signal);
    const json = jsonOf(res);
    const obj = json && isObject(json.DeviceInfo) ? json.DeviceInfo : json;
    const f = (n: string) => (field(res, obj, n) ?? '').trim();
    return {
      serialNumber: f('serialNumber'),
      model: f('model'),
      firmwareVersion: f('firmwareVersion'),
      deviceName: f('deviceName'),
      macAddress: f('macAddress'),
    };
  }

  async getTime(signal?: AbortSignal): Promise<DeviceTime> {
    const res = await this.get('/ISAPI/System/time?format=json', signal);
    const json = jsonOf(res);
    const obj = json && isObject(json.Time) ? json.Time : json;
    const local = field(res, obj, 'localTime');
    const t = splitIsoTime(local);
    if (!t) throw new HikApiError(`the device's clock reads ${JSON.stringify(local ?? null)}, not a time`, res.status);
    return { ...t, timeZone: field(res, obj, 'timeZone') ?? '', timeMode: field(res, obj, 'timeMode') ?? '' };
  }

  /**
   * Sets the device clock to wall clock `wallClock` (`YYYY-MM-DD HH:mm:ss`), keeping its time
   * zone setting (read with getTime). The device's clock mode becomes manual: a device that
   * has drifted this far is not getting NTP anyway.
   */
  async setTime(wallClock: string, current: DeviceTime, signal?: AbortSignal): Promise<void> {
    const local = `${wallClock.replace(' ', 'T')}${current.offset}`;
    const body =
      '<?xml version="1.0" encoding="UTF-8"?><Time version="2.0" xmlns="http://www.isapi.org/ver20/XMLSchema">' +
      `<timeMode>manual</timeMode><localTime>${escapeXml(local)}</localTime>` +
      (current.timeZone ? `<timeZone>${escapeXml(current.timeZone)}</timeZone>` : '') +
      '</Time>';
    const path = '/ISAPI/System/time';
    expectOk(await this.http.request('PUT', path, { body, contentType: 'application/xml', signal }), path);
  }

  /** One page of the event search. `searchID` stays the same for all pages of one search. */
  async eventPage(q: EventQuery, searchID: string, position: number, signal?: AbortSignal): Promise<EventPage> {
    const cond: Json = {
      searchID,
      searchResultPosition: position,
      maxResults: q.maxResults ?? PAGE_REQUEST,
      major: q.major,
      minor: q.minor,
    };
    if (q.startTime !== undefined) cond.startTime = q.startTime;
    if (q.endTime !== undefined) cond.endTime = q.endTime;
    if (q.beginSerialNo !== undefined) cond.beginSerialNo = q.beginSerialNo;
    if (q.endSerialNo !== undefined) cond.endSerialNo = q.endSerialNo;
    const res = await this.http.request('POST', EVENTS_PATH, { body: JSON.stringify({ AcsEventCond: cond }), signal });
    const json = expectJson(res, EVENTS_PATH);
    const ev = isObject(json.AcsEvent) ? json.AcsEvent : undefined;
    if (!ev)
      throw new HikApiError(`${EVENTS_PATH.split('?')[0]}: the answer has no AcsEvent`, res.status, 'noAcsEvent');
    const list = Array.isArray(ev.InfoList) ? ev.InfoList.filter(isObject) : [];
    const num = (v: unknown, dflt: number) => (typeof v === 'number' && Number.isFinite(v) ? v : dflt);
    return {
      status: String(ev.responseStatusStrg ?? (list.length ? 'OK' : 'NO MATCH')).toUpperCase(),
      // What the device says it sent, but never more than it did send: a device that claims
      // 30 and sends 25 (partial records) is asked again from the 26th, so none is skipped.
      numOfMatches: Math.min(num(ev.numOfMatches, list.length), list.length),
      totalMatches:
        typeof ev.totalMatches === 'number' && Number.isFinite(ev.totalMatches) ? ev.totalMatches : undefined,
      rows: list,
    };
  }

  /**
   * Every page of one search, in order: each next page starts where the device says the last
   * one ended (position + numOfMatches, never + maxResults: devices cap pages silently). The
   * next page is asked for as soon as this one is parsed, so the device works on it while the
   * caller journals this one (one connection: the requests still go one after the other).
   *
   * A search the device does not end is cut short (HikApiError with a SEARCH_FAULTS code): `MORE`
   * with no rows, `MORE` more than a page past the matches it said the search holds, or a page
   * it sent before (a device ignoring searchResultPosition). The caller bounds the pages and
   * the time a whole poll takes.
   */
  async *eventPages(q: EventQuery, signal?: AbortSignal): AsyncGenerator<EventPage> {
    const searchID = randomUUID();
    const fetch = (position: number) => {
      const p = this.eventPage(q, searchID, position, signal);
      p.catch(() => undefined); // awaited below; a caller that stops early must not leave it unhandled
      return p;
    };
    const fault = (what: string, code: string) =>
      new HikApiError(`${EVENTS_PATH.split('?')[0]}: the device ${what}`, 200, code);
    const seen = new Set<string>();
    let total: number | undefined;
    let firstPage: number | undefined;
    let next: Promise<EventPage> | undefined = fetch(0);
    for (let position = 0; next;) {
      const page: EventPage = await next;
      next = undefined;
      if (page.totalMatches !== undefined) total = Math.max(total ?? 0, page.totalMatches);
      firstPage ??= page.numOfMatches;
      if (page.status === 'MORE') {
        if (page.numOfMatches <= 0) throw fault('says MORE but sent no rows', 'emptyMore');
        position += page.numOfMatches;
        // A total no larger than the first page is no total (firmware that writes the page's count there).
        if (total !== undefined && total > firstPage && position >= total + PAGE_REQUEST) {
          throw fault(
            `keeps saying MORE past the ${total} events it says the search holds (${position} read)`,
            'endlessMore',
          );
        }
        const print = fingerprint(page.rows);
        if (print !== undefined) {
          if (seen.has(print))
            throw fault('sent a page of events it had sent already (it ignores the page position)', 'repeatedPage');
          seen.add(print);
          if (seen.size > PAGES_REMEMBERED) seen.delete(seen.values().next().value!);
        }
        next = fetch(position);
      }
      yield page;
    }
  }

  /** What the device's event search capabilities say of serial-number filters (JSON or XML). */
  async eventSearchCapabilities(signal?: AbortSignal): Promise<EventSearchCapabilities> {
    const path = '/ISAPI/AccessControl/AcsEvent/capabilities?format=json';
    const res = await this.http.request('GET', path, { signal });
    if (res.status < 200 || res.status > 299) return { serialFilters: undefined, endSerialMax: undefined };
    const max =
      /"endSerialNo"\s*:\s*\{[^}]*?"@max"\s*:\s*"?(\d+)/.exec(res.text)?.[1] ??
      /<endSerialNo\b[^>]*\bmax\s*=\s*"(\d+)"/i.exec(res.text)?.[1];
    return {
      serialFilters: /beginSerialNo/.test(res.text),
      endSerialMax: max !== undefined && Number.isSafeInteger(Number(max)) ? Number(max) : undefined,
    };
  }
}

/** A page's identity: its first and last events and its length; undefined when its rows carry neither serial nor time. */
function fingerprint(rows: readonly Json[]): string | undefined {
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last) return undefined;
  const id = (r: Json) => `${String(r.serialNo ?? '')}@${String(r.time ?? '')}`;
  if (first.serialNo === undefined && first.time === undefined) return undefined;
  return `${id(first)}|${id(last)}|${rows.length}`;
}
