import type { SimCard, SimUser } from './types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** An ISAPI ResponseStatus body. */
export function responseStatus(ok: boolean, sub = 'ok', msg?: string): Json {
  return ok
    ? { statusCode: 1, statusString: 'OK', subStatusCode: 'ok' }
    : { statusCode: 6, statusString: 'Invalid Content', subStatusCode: sub, ...(msg ? { errorMsg: msg } : {}) };
}

export interface Answer {
  status: number;
  body: Json;
}

const bad = (sub: string, msg: string): Answer => ({ status: 400, body: responseStatus(false, sub, msg) });

/** Paged search answer, advancing like the event search (at most `cap` a page). */
function page<T>(items: T[], cond: Json, cap: number, root: string, listKey: string): Answer {
  const position = Number(cond.searchResultPosition ?? 0);
  const max = Math.min(Number(cond.maxResults ?? cap), cap);
  if (!Number.isInteger(position) || position < 0 || !Number.isInteger(max) || max < 1) {
    return bad('badParameters', 'searchResultPosition/maxResults');
  }
  const rows = items.slice(position, position + max);
  const more = position + rows.length < items.length;
  return {
    status: 200,
    body: {
      [root]: {
        searchID: str(cond.searchID),
        responseStatusStrg: items.length === 0 ? 'NO MATCH' : more ? 'MORE' : 'OK',
        numOfMatches: rows.length,
        totalMatches: items.length,
        ...(rows.length ? { [listKey]: rows } : {}),
      },
    },
  };
}

/** The people on the simulated device: users and their cards (UserInfo, CardInfo, UserInfoDetail). */
export class People {
  private readonly users = new Map<string, SimUser>();
  private readonly cards = new Map<string, SimCard>();

  constructor(private readonly cap: () => number) {}

  listUsers(): SimUser[] {
    return [...this.users.values()];
  }

  listCards(): SimCard[] {
    return [...this.cards.values()];
  }

  put(u: Partial<SimUser> & { employeeNo: string }): void {
    this.users.set(u.employeeNo, {
      employeeNo: u.employeeNo,
      name: u.name ?? '',
      userType: u.userType ?? 'normal',
      valid: u.valid ?? { enable: true, beginTime: '2000-01-01T00:00:00', endTime: '2037-12-31T23:59:59' },
      doorRight: u.doorRight ?? '1',
      localUIRight: u.localUIRight ?? false,
    });
  }

  private userJson(u: SimUser): Json {
    const cards = [...this.cards.values()].filter((c) => c.employeeNo === u.employeeNo).length;
    return {
      employeeNo: u.employeeNo,
      name: u.name,
      userType: u.userType,
      Valid: { ...u.valid, timeType: 'local' },
      doorRight: u.doorRight,
      localUIRight: u.localUIRight,
      numOfCard: cards,
      numOfFP: 0,
      numOfFace: 0,
    };
  }

  /**
   * UserInfo/Search; `endless`: firmware that ignores the position and says MORE for ever, with
   * its first user again and a numOfMatches larger than the rows it sends.
   */
  searchUsers(body: Json, endless = false): Answer {
    const cond = isObject(body.UserInfoSearchCond) ? body.UserInfoSearchCond : undefined;
    if (!cond) return bad('badJsonContent', 'UserInfoSearchCond');
    const wanted = Array.isArray(cond.EmployeeNoList)
      ? new Set(cond.EmployeeNoList.filter(isObject).map((e) => str(e.employeeNo)))
      : undefined;
    const list = this.listUsers().filter((u) => !wanted || wanted.has(u.employeeNo));
    if (endless && list.length > 0) {
      return {
        status: 200,
        body: {
          UserInfoSearch: {
            searchID: str(cond.searchID),
            responseStatusStrg: 'MORE',
            numOfMatches: 30,
            totalMatches: Number(cond.searchResultPosition ?? 0) + 60,
            UserInfo: [this.userJson(list[0]!)],
          },
        },
      };
    }
    return page(
      list.map((u) => this.userJson(u)),
      cond,
      this.cap(),
      'UserInfoSearch',
      'UserInfo',
    );
  }

  count(): Answer {
    return { status: 200, body: { UserInfoCount: { userNumber: this.users.size } } };
  }

  /** UserInfo/SetUp (add or modify), Record (add only), Modify (existing only). */
  setUp(body: Json, mode: 'setUp' | 'record' | 'modify'): Answer {
    const u = isObject(body.UserInfo) ? body.UserInfo : undefined;
    const employeeNo = u ? str(u.employeeNo) : '';
    if (!u || !employeeNo || employeeNo.length > 32) return bad('badJsonContent', 'UserInfo.employeeNo');
    const exists = this.users.has(employeeNo);
    if (mode === 'record' && exists) return bad('employeeNoAlreadyExist', employeeNo);
    if (mode === 'modify' && !exists) return bad('employeeNoNotExist', employeeNo);
    const prev = this.users.get(employeeNo);
    const v = isObject(u.Valid) ? u.Valid : undefined;
    if (!exists && !v) return bad('badJsonContent', 'UserInfo.Valid is required for a new user');
    this.put({
      employeeNo,
      name: u.name === undefined ? (prev?.name ?? '') : str(u.name),
      userType: str(u.userType) || prev?.userType || 'normal',
      valid: v ? { enable: v.enable !== false, beginTime: str(v.beginTime), endTime: str(v.endTime) } : prev!.valid,
      doorRight: u.doorRight === undefined ? (prev?.doorRight ?? '1') : str(u.doorRight),
      localUIRight: typeof u.localUIRight === 'boolean' ? u.localUIRight : (prev?.localUIRight ?? false),
    });
    return { status: 200, body: responseStatus(true) };
  }

  /** UserInfoDetail/Delete: the users, with their cards. */
  deleteUsers(body: Json): Answer {
    const d = isObject(body.UserInfoDetail) ? body.UserInfoDetail : undefined;
    if (!d) return bad('badJsonContent', 'UserInfoDetail');
    if (d.mode === 'all') {
      this.users.clear();
      this.cards.clear();
    } else {
      const list = Array.isArray(d.EmployeeNoList)
        ? d.EmployeeNoList.filter(isObject).map((e) => str(e.employeeNo))
        : [];
      if (list.length === 0) return bad('badJsonContent', 'UserInfoDetail.EmployeeNoList');
      for (const no of list) {
        this.users.delete(no);
        for (const [cardNo, c] of this.cards) if (c.employeeNo === no) this.cards.delete(cardNo);
      }
    }
    return { status: 200, body: responseStatus(true) };
  }

  searchCards(body: Json): Answer {
    const cond = isObject(body.CardInfoSearchCond) ? body.CardInfoSearchCond : undefined;
    if (!cond) return bad('badJsonContent', 'CardInfoSearchCond');
    const wanted = Array.isArray(cond.EmployeeNoList)
      ? new Set(cond.EmployeeNoList.filter(isObject).map((e) => str(e.employeeNo)))
      : undefined;
    const list = this.listCards().filter((c) => !wanted || wanted.has(c.employeeNo));
    return page(list, cond, this.cap(), 'CardInfoSearch', 'CardInfo');
  }

  setUpCard(body: Json): Answer {
    const c = isObject(body.CardInfo) ? body.CardInfo : undefined;
    const cardNo = c ? str(c.cardNo) : '';
    const employeeNo = c ? str(c.employeeNo) : '';
    if (!c || !cardNo || !employeeNo) return bad('badJsonContent', 'CardInfo.cardNo/employeeNo');
    if (!this.users.has(employeeNo)) return bad('employeeNoNotExist', employeeNo);
    this.cards.set(cardNo, { cardNo, employeeNo, cardType: str(c.cardType) || 'normalCard' });
    return { status: 200, body: responseStatus(true) };
  }

  deleteCards(body: Json): Answer {
    const d = isObject(body.CardInfoDelCond) ? body.CardInfoDelCond : undefined;
    const list = d && Array.isArray(d.CardNoList) ? d.CardNoList.filter(isObject).map((e) => str(e.cardNo)) : [];
    if (list.length === 0) return bad('badJsonContent', 'CardInfoDelCond.CardNoList');
    for (const no of list) this.cards.delete(no);
    return { status: 200, body: responseStatus(true) };
  }
}
