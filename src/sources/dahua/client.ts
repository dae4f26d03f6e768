import { DahuaApiError } from './errors.js';
import { DahuaHttp, wordsOf, type DahuaHttpOptions, type DahuaResponse } from './http.js';
import { errorText, parseLines, parseRecordAnswer } from './kv.js';
import { fromFields, type DahuaRecord } from './records.js';
import { DahuaUsers } from './users.js';

/**
 * DahuaClient: the CGI requests punchgate makes to one access terminal: identity (magicBox.cgi),
 * clock (global.cgi), the record search (recordFinder.cgi), the event stream (eventManager.cgi)
 * and, through `users`, the people on it.
 */
export interface DahuaIdentity {
  serial: string;
  deviceType: string;
  software: string;
}

/**
 * How the firmware takes the record search's time window: `StartTime`/`EndTime` (most), or only
 * as `condition.StartTime`/`condition.EndTime` (firmware that answers the plain form with 400, or
 * ignores it). Learned per process.
 */
export type TimeCondition = 'plain' | 'condition';

export interface RecordPage {
  /** `found=`: the records in this answer, as the device says. */
  found: number;
  records: DahuaRecord[];
}

export const RECORDS_PATH = '/cgi-bin/recordFinder.cgi';
/** Far enough for every plausible record (2037-12-31 23:59:59 as seconds). */
export const LATEST_SECONDS = 2145916799;

export class DahuaClient {
  readonly http: DahuaHttp;
  readonly users: DahuaUsers;
  private known: DahuaIdentity | undefined;

  constructor(opts: DahuaHttpOptions) {
    this.http = new DahuaHttp(opts);
    this.users = new DahuaUsers(this.http);
  }

  get peer(): string {
    return this.http.peer;
  }

  /** GET, answered 200 with no error text; throws DahuaApiError otherwise. */
  async get(path: string, signal?: AbortSignal): Promise<DahuaResponse> {
    return expectOk(await this.http.request('GET', path, { signal }), path);
  }

  private async value(path: string, key: string, signal?: AbortSignal): Promise<string> {
    const res = await this.get(path, signal);
    const v = parseLines(res.text).get(key);
    if (v === undefined)
      throw new DahuaApiError(
        `${path.split('?')[0]}: the answer has no ${key}= (${JSON.stringify(wordsOf(res, res.text.slice(0, 4096)).slice(0, 80))})`,
        res.status,
      );
    return v.trim();
  }

  /**
   * Serial number (every poll: a swapped device is noticed at once), type and firmware (asked once
   * per connection's life: they change only with the device, and then the serial does too).
   */
  async identity(signal?: AbortSignal): Promise<DahuaIdentity> {
    const serial = await this.value('/cgi-bin/magicBox.cgi?action=getSerialNo', 'sn', signal);
    if (this.known?.serial !== serial) {
      const deviceType = await this.value('/cgi-bin/magicBox.cgi?action=getDeviceType', 'type', signal).catch(() => '');
      const software = await this.value('/cgi-bin/magicBox.cgi?action=getSoftwareVersion', 'version', signal).catch(
        () => '',
      );
      this.known = { serial, deviceType, software };
    }
    return this.known;
  }

  /** The device's wall clock, `YYYY-MM-DD HH:mm:ss` (it writes `2026-11-2 7:05:01` on some firmware). */
  async currentTime(signal?: AbortSignal): Promise<string> {
    const v = await this.value('/cgi-bin/global.cgi?action=getCurrentTime', 'result', signal);
    const m = /^(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{1,2}):(\d{1,2})$/.exec(v);
    if (!m) throw new DahuaApiError(`the device's clock reads ${JSON.stringify(v.slice(0, 40))}, not a time`, 200);
    const p = (s: string, w = 2) => s.padStart(w, '0');
    return `${m[1]}-${p(m[2]!)}-${p(m[3]!)} ${p(m[4]!)}:${p(m[5]!)}:${p(m[6]!)}`;
  }

  /** How many records the device holds (`getQuerySize`); undefined where the firmware does not say. */
  async recordCount(signal?: AbortSignal): Promise<number | undefined> {
    const res = await this.http.request('GET', `${RECORDS_PATH}?action=getQuerySize&name=AccessControlCardRec`, {
      signal,
    });
    if (res.status !== 200 || errorText(res.text) !== undefined) return undefined;
    const v = parseLines(res.text).get('count');
    return v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : undefined;
  }

  /** One page of records from `start` to `end` (seconds, inclusive), at most `count`, in the device's order. */
  async recordPage(
    start: number,
    count: number,
    form: TimeCondition,
    signal?: AbortSignal,
    end = LATEST_SECONDS,
    /** How the device writes CreateTime (the terminal's recordClock): how a wall-clock text is read. */
    clock: 'local' | 'utc' = 'local',
    /** The terminal's timezone: where a wall-clock text is turned into real seconds (`utc`). */
    timezone?: string,
  ): Promise<RecordPage> {
    const p = form === 'condition' ? 'condition.' : '';
    const path =
      `${RECORDS_PATH}?action=find&name=AccessControlCardRec` +
      `&${p}StartTime=${start}&${p}EndTime=${end}&count=${count}`;
    const res = await this.get(path, signal);
    const answer = parseRecordAnswer(res.text, count + 1);
    const records = answer.records.map((f) => fromFields(f, clock, timezone));
    const said = answer.found;
    const found = said !== undefined && /^\s*\d+\s*$/.test(said) ? Number(said) : records.length;
    if (said === undefined && records.length === 0 && res.text.trim() !== '')
      throw new DahuaApiError(`${RECORDS_PATH}: the answer has neither found= nor records`, res.status);
    return { found, records };
  }

  /** The event stream's path: access events, with a heartbeat every `heartbeat` seconds. */
  static attachPath(heartbeat: number): string {
    return `/cgi-bin/eventManager.cgi?action=attach&codes=[AccessControl]&heartbeat=${heartbeat}`;
  }

  destroy(): void {
    this.http.destroy();
  }
}

/** The answer unless it is an error (an HTTP error status, or 200 with `Error` text). */
export function expectOk(res: DahuaResponse, path: string): DahuaResponse {
  const err = errorText(res.text);
  if (res.status >= 200 && res.status <= 299 && err === undefined) return res;
  const status = res.status >= 200 && res.status <= 299 ? 400 : res.status;
  throw new DahuaApiError(`${path.split('?')[0]}: HTTP ${res.status}${err ? ` (${wordsOf(res, err)})` : ''}`, status);
}
