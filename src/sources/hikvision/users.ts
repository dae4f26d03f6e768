import { randomUUID } from 'node:crypto';
import { HikApiError } from './errors.js';
import type { HikHttp } from './http.js';
import { expectJson, expectOk, isObject, type Json } from './isapi.js';
import { MAX_USERS, monotonicNow, USER_SEARCH_DEADLINE_MS } from './limits.js';

/**
 * The people on a Hikvision terminal (ISAPI UserInfo and CardInfo), for `terminals users` and
 * the roster sync: search, add-or-update, delete, and their cards. A user's `employeeNo` is
 * the code punches carry (employeeNoString), the HRMS's biometric code.
 */

export interface HikUser {
  employeeNo: string;
  name: string;
  /** normal, visitor, blackList... */
  userType: string;
  /** The validity window, when the device reports one. */
  valid?: { enable: boolean; beginTime: string; endTime: string };
  numOfCard: number;
  numOfFP: number;
  numOfFace: number;
  /** May use the device's own menu (an administrator of the device). */
  localUIRight: boolean;
}

/** What `setUp` writes. Absent optional fields get the defaults below. */
export interface HikUserInput {
  employeeNo: string;
  name: string;
  /** Default `normal`. */
  userType?: string;
  /** Default: enabled from 2000 to 2037 (devices require a window for a new user). */
  valid?: { enable: boolean; beginTime: string; endTime: string };
  /** Doors the person may open, default "1"; with planTemplateNo "1" (all day) on each. */
  doorRight?: string;
}

export interface HikCard {
  employeeNo: string;
  cardNo: string;
  /** normalCard, patrolCard, hijackCard, superCard... */
  cardType: string;
}

const PAGE = 30;
export const DEFAULT_VALID = { enable: true, beginTime: '2000-01-01T00:00:00', endTime: '2037-12-31T23:59:59' };

const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : Number(v) || 0);

function toUser(o: Json): HikUser | undefined {
  const employeeNo = str(o.employeeNo ?? o.employeeNoString);
  if (!employeeNo) return undefined;
  const v = isObject(o.Valid) ? o.Valid : undefined;
  return {
    employeeNo,
    name: str(o.name),
    userType: str(o.userType) || 'normal',
    ...(v ? { valid: { enable: v.enable !== false, beginTime: str(v.beginTime), endTime: str(v.endTime) } } : {}),
    numOfCard: num(o.numOfCard),
    numOfFP: num(o.numOfFP),
    numOfFace: num(o.numOfFace),
    localUIRight: o.localUIRight === true || o.localUIRight === 'true',
  };
}

export class HikUsers {
  constructor(private readonly http: HikHttp) {}

  /**
   * Every item of a paged search (UserInfo/Search, CardInfo/Search): pages advanced by the rows
   * the device actually sent (its numOfMatches, never more) until it stops saying MORE. Bounded,
   * whatever the device answers: MORE without rows, MORE past the total it said, more than
   * MAX_USERS items, or longer than USER_SEARCH_DEADLINE_MS (monotonic) end the search with an
   * error naming what the device did.
   */
  private async searchAll<T>(
    path: string,
    condRoot: string,
    answerRoot: string,
    listKey: string,
    map: (o: Json) => T | undefined,
    extra: Json = {},
    signal?: AbortSignal,
  ): Promise<T[]> {
    const what = path.split('?')[0];
    const searchID = randomUUID();
    const deadline = monotonicNow() + USER_SEARCH_DEADLINE_MS;
    const out: T[] = [];
    const seen = new Set<string>();
    let total = 0;
    for (let position = 0; ;) {
      const body = JSON.stringify({
        [condRoot]: { searchID, searchResultPosition: position, maxResults: PAGE, ...extra },
      });
      const res = await this.http.request('POST', path, { body, signal });
      const json = expectJson(res, path);
      const a = isObject(json[answerRoot]) ? json[answerRoot] : undefined;
      if (!a) throw new HikApiError(`${what}: the answer has no ${answerRoot}`, res.status);
      const list = Array.isArray(a[listKey]) ? a[listKey].filter(isObject) : [];
      for (const o of list) {
        const item = map(o);
        if (item !== undefined) out.push(item);
      }
      const status = String(a.responseStatusStrg ?? 'OK').toUpperCase();
      if (status !== 'MORE') return out;
      // What the device says it sent, never more than it did send.
      const n = Math.min(typeof a.numOfMatches === 'number' ? a.numOfMatches : list.length, list.length);
      if (typeof a.totalMatches === 'number' && Number.isFinite(a.totalMatches))
        total = Math.max(total, a.totalMatches);
      if (n <= 0) throw new HikApiError(`${what}: the device says MORE but sent nothing`, res.status, 'emptyMore');
      position += n;
      if (total > PAGE && position >= total + PAGE) {
        throw new HikApiError(
          `${what}: the device keeps saying MORE past the ${total} it says it has (${position} read)`,
          res.status,
          'endlessMore',
        );
      }
      const id = (o: Json) => `${str(o.employeeNo)}/${str(o.cardNo)}`;
      const print = `${id(list[0]!)}|${id(list.at(-1)!)}|${list.length}`;
      if (seen.has(print)) {
        throw new HikApiError(
          `${what}: the device sent a page it had sent already (it ignores the page position)`,
          res.status,
          'repeatedPage',
        );
      }
      seen.add(print);
      if (position >= MAX_USERS) {
        throw new HikApiError(
          `${what}: the device sends more than ${MAX_USERS} entries: no terminal holds that many`,
          res.status,
          'tooMany',
        );
      }
      if (monotonicNow() >= deadline) {
        throw new HikApiError(
          `${what}: the device had not finished after ${USER_SEARCH_DEADLINE_MS / 60_000} min (${position} read)`,
          res.status,
          'deadline',
        );
      }
    }
  }

  /** Every user on the terminal. */
  async list(signal?: AbortSignal): Promise<HikUser[]> {
    return this.searchAll(
      '/ISAPI/AccessControl/UserInfo/Search?format=json',
      'UserInfoSearchCond',
      'UserInfoSearch',
      'UserInfo',
      toUser,
      {},
      signal,
    );
  }

  /** The number of users, or null when the device does not say. */
  async count(signal?: AbortSignal): Promise<number | null> {
    const path = '/ISAPI/AccessControl/UserInfo/Count?format=json';
    const res = await this.http.request('GET', path, { signal });
    if (res.status < 200 || res.status > 299) return null;
    const m = /"userNumber"\s*:\s*(\d+)|<userNumber>(\d+)</.exec(res.text);
    return m ? Number(m[1] ?? m[2]) : null;
  }

  /**
   * Adds the user, or updates it when its employeeNo exists (UserInfo/SetUp); `record` only adds
   * (UserInfo/Record, for firmware without SetUp).
   */
  async setUp(user: HikUserInput, signal?: AbortSignal, how: 'setUp' | 'record' = 'setUp'): Promise<void> {
    const path =
      how === 'setUp'
        ? '/ISAPI/AccessControl/UserInfo/SetUp?format=json'
        : '/ISAPI/AccessControl/UserInfo/Record?format=json';
    const doorRight = user.doorRight ?? '1';
    const body = {
      UserInfo: {
        employeeNo: user.employeeNo,
        name: user.name,
        userType: user.userType ?? 'normal',
        Valid: { ...(user.valid ?? DEFAULT_VALID), timeType: 'local' },
        doorRight,
        RightPlan: doorRight
          .split(',')
          .filter(Boolean)
          .map((d) => ({ doorNo: Number(d), planTemplateNo: '1' })),
      },
    };
    const method = how === 'setUp' ? 'PUT' : 'POST';
    expectOk(await this.http.request(method, path, { body: JSON.stringify(body), signal }), path);
  }

  /**
   * Changes the name of an existing user (UserInfo/Modify): the fields not sent (validity, doors,
   * rights) stay as they are on the device.
   */
  async rename(employeeNo: string, name: string, signal?: AbortSignal): Promise<void> {
    const path = '/ISAPI/AccessControl/UserInfo/Modify?format=json';
    const body = { UserInfo: { employeeNo, name } };
    expectOk(await this.http.request('PUT', path, { body: JSON.stringify(body), signal }), path);
  }

  /**
   * Deletes users with their cards, fingerprints and faces (UserInfoDetail/Delete). Devices
   * that do it in the background are followed (DeleteProcess) until they say it is done.
   */
  async delete(employeeNos: readonly string[], signal?: AbortSignal): Promise<void> {
    if (employeeNos.length === 0) return;
    const path = '/ISAPI/AccessControl/UserInfoDetail/Delete?format=json';
    const body = {
      UserInfoDetail: { mode: 'byEmployeeNo', EmployeeNoList: employeeNos.map((employeeNo) => ({ employeeNo })) },
    };
    expectOk(await this.http.request('PUT', path, { body: JSON.stringify(body), signal }), path);
    const progress = '/ISAPI/AccessControl/UserInfoDetail/DeleteProcess?format=json';
    for (let i = 0; i < 120; i++) {
      const res = await this.http.request('GET', progress, { signal });
      if (res.status === 404 || res.status === 405) return; // no background deletion on this model
      const json = expectJson(res, progress);
      const status = isObject(json.UserInfoDetail) ? str(json.UserInfoDetail.status) : '';
      if (status === 'success' || status === '') return;
      if (status === 'failed')
        throw new HikApiError(`${progress.split('?')[0]}: the device says the deletion failed`, 200);
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new HikApiError('UserInfoDetail/DeleteProcess: the deletion did not finish within 60 s', 200);
  }

  /** Cards of the given users (all cards when none are named). */
  async cards(employeeNos: readonly string[] = [], signal?: AbortSignal): Promise<HikCard[]> {
    return this.searchAll(
      '/ISAPI/AccessControl/CardInfo/Search?format=json',
      'CardInfoSearchCond',
      'CardInfoSearch',
      'CardInfo',
      (c): HikCard | undefined => {
        const card = {
          employeeNo: str(c.employeeNo),
          cardNo: str(c.cardNo),
          cardType: str(c.cardType) || 'normalCard',
        };
        return card.cardNo !== '' ? card : undefined;
      },
      employeeNos.length ? { EmployeeNoList: employeeNos.map((employeeNo) => ({ employeeNo })) } : {},
      signal,
    );
  }

  /** Gives a user a card (CardInfo/SetUp: added, or updated when the card number exists). */
  async setUpCard(
    card: { employeeNo: string; cardNo: string; cardType?: string },
    signal?: AbortSignal,
  ): Promise<void> {
    const path = '/ISAPI/AccessControl/CardInfo/SetUp?format=json';
    const body = {
      CardInfo: { employeeNo: card.employeeNo, cardNo: card.cardNo, cardType: card.cardType ?? 'normalCard' },
    };
    expectOk(await this.http.request('PUT', path, { body: JSON.stringify(body), signal }), path);
  }

  /** Removes cards by number (CardInfo/Delete). */
  async deleteCards(cardNos: readonly string[], signal?: AbortSignal): Promise<void> {
    if (cardNos.length === 0) return;
    const path = '/ISAPI/AccessControl/CardInfo/Delete?format=json';
    const body = { CardInfoDelCond: { CardNoList: cardNos.map((cardNo) => ({ cardNo })) } };
    expectOk(await this.http.request('PUT', path, { body: JSON.stringify(body), signal }), path);
  }
}
