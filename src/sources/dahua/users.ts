import { DahuaApiError } from './errors.js';
import { wordsOf, type DahuaHttp } from './http.js';
import { errorText, parseLines, parseRecords } from './kv.js';
import { MAX_USERS } from './limits.js';

/**
 * The people on a Dahua terminal, by either of its two user APIs:
 * - AccessUser.cgi (newer firmware): JSON. `startFind` / `doFind` / `stopFind` list the users,
 *   `insertMulti` / `updateMulti` write them (`UserList`), `removeMulti&UserIDList[0]=` removes
 *   them; their cards by AccessCard.cgi the same way (`CardList`, `CardNoList`).
 * - recordUpdater.cgi (older firmware): a user is an `AccessControlCard` record (CardName, CardNo,
 *   UserID) listed by recordFinder.cgi and written by `insert` / `update` / `remove` with its RecNo.
 *   Such a record needs a card number (every published insert carries CardNo; the record is the
 *   card). A user without a card is never written there: a card number made up from the user id
 *   would open the door for the badge with that number (see NoCardForRecordError).
 * Sources: Dahua's HTTP API for access control; horilla-opensource/horilla biometric/dahua.py
 * (enroll_new_user); the insertMulti bodies of several open clients (UserID, UserName, UserType,
 * Authority, Doors, ValidFrom, ValidTo).
 */
export type UserApi = 'accessUser' | 'recordUpdater';

export interface DahuaUser {
  userId: string;
  name: string;
  /** The user's card numbers as the device writes them. */
  cards: string[];
  /** Authority 1 (administrator) on AccessUser firmware. */
  admin: boolean;
  /** recordUpdater firmware: the record's RecNo (needed to change or remove it). */
  recNo?: number;
}

/**
 * A user without a card cannot be written to recordUpdater firmware: its user record is a card
 * record. Callers check first (the roster reports such a user as failed with the fix); this guards
 * against a caller that did not, so that no card is ever invented.
 */
export class NoCardForRecordError extends Error {
  constructor(readonly userId: string) {
    super(
      `user ${userId} has no card, and this terminal's firmware (recordUpdater.cgi) keeps a user only as a card record: not written`,
    );
    this.name = 'NoCardForRecordError';
  }
}

const PAGE = 100;
const enc = encodeURIComponent;

export class DahuaUsers {
  constructor(private readonly http: DahuaHttp) {}

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<string> {
    const res = await this.http.request(method, path, {
      ...(body !== undefined ? { body: JSON.stringify(body), contentType: 'application/json' } : {}),
      maxBytes: 8 * 1024 * 1024,
    });
    const err = errorText(res.text);
    if (res.status < 200 || res.status > 299 || err !== undefined)
      throw new DahuaApiError(
        `${path.split('?')[0]} ${/action=(\w+)/.exec(path)?.[1] ?? ''}: HTTP ${res.status}${err ? ` (${wordsOf(res, err)})` : ''}`,
        res.status >= 200 && res.status <= 299 ? 400 : res.status,
      );
    return res.text;
  }

  /** Which API the firmware has: AccessUser.cgi when its search answers, else recordUpdater.cgi. */
  async detect(): Promise<UserApi> {
    try {
      await this.findAll('AccessUser', 1);
      return 'accessUser';
    } catch (e) {
      if (e instanceof DahuaApiError && e.unsupported) return 'recordUpdater';
      throw e;
    }
  }

  /** startFind / doFind pages / stopFind of AccessUser.cgi or AccessCard.cgi. */
  private async findAll(cgi: 'AccessUser' | 'AccessCard', limit = MAX_USERS): Promise<Record<string, unknown>[]> {
    const start = JSON.parse(await this.call('POST', `/cgi-bin/${cgi}.cgi?action=startFind`, { Condition: {} })) as {
      Token?: unknown;
      Total?: unknown;
    };
    const token = Number(start.Token);
    if (!Number.isSafeInteger(token)) throw new DahuaApiError(`${cgi}.cgi startFind: no Token in the answer`, 400);
    const out: Record<string, unknown>[] = [];
    try {
      for (let offset = 0; out.length < limit; offset += PAGE) {
        const page = JSON.parse(
          await this.call('GET', `/cgi-bin/${cgi}.cgi?action=doFind&Token=${token}&Offset=${offset}&Count=${PAGE}`),
        ) as { Info?: unknown };
        const info = Array.isArray(page.Info) ? (page.Info as unknown[]) : [];
        for (const i of info) if (i && typeof i === 'object') out.push(i as Record<string, unknown>);
        if (info.length < PAGE) break;
      }
    } finally {
      await this.call('GET', `/cgi-bin/${cgi}.cgi?action=stopFind&Token=${token}`).catch(() => undefined);
    }
    return out.slice(0, limit);
  }

  async list(api: UserApi): Promise<DahuaUser[]> {
    const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
    if (api === 'accessUser') {
      const users = await this.findAll('AccessUser');
      const cards = users.length > 0 ? await this.findAll('AccessCard') : [];
      return users.map((u) => ({
        userId: text(u.UserID),
        name: text(u.UserName),
        cards: cards.filter((c) => text(c.UserID) === text(u.UserID)).map((c) => text(c.CardNo)),
        admin: Number(u.Authority) === 1,
      }));
    }
    const out: DahuaUser[] = [];
    const res = await this.call(
      'GET',
      `/cgi-bin/recordFinder.cgi?action=find&name=AccessControlCard&count=${MAX_USERS}`,
    );
    for (const r of parseRecords(parseLines(res), 'records', MAX_USERS)) {
      const userId = r.get('UserID') ?? '';
      const card = r.get('CardNo') ?? '';
      out.push({
        userId,
        name: r.get('CardName') ?? '',
        // Shown as the terminal holds it, even when equal to the user id (earlier versions wrote
        // cardless users so): that badge opens the door, and the card-clash check must see it.
        cards: card ? [card] : [],
        admin: false,
        recNo: Number(r.get('RecNo')),
      });
    }
    return out;
  }

  async add(api: UserApi, u: { userId: string; name: string; card: string }): Promise<void> {
    if (api === 'accessUser') {
      await this.call('POST', '/cgi-bin/AccessUser.cgi?action=insertMulti', { UserList: [accessUser(u)] });
      if (u.card) await this.setCard(u.userId, u.card, []);
      return;
    }
    if (!u.card) throw new NoCardForRecordError(u.userId);
    await this.call(
      'GET',
      `/cgi-bin/recordUpdater.cgi?action=insert&name=AccessControlCard&CardName=${enc(u.name)}&CardNo=${enc(u.card)}&UserID=${enc(u.userId)}&CardStatus=0&CardType=0&Doors[0]=0`,
    );
  }

  async update(
    api: UserApi,
    u: { userId: string; name: string; card: string; recNo?: number; oldCards: readonly string[] },
  ): Promise<void> {
    if (api === 'accessUser') {
      await this.call('POST', '/cgi-bin/AccessUser.cgi?action=updateMulti', { UserList: [accessUser(u)] });
      await this.setCard(u.userId, u.card, u.oldCards);
      return;
    }
    if (u.recNo === undefined || !Number.isSafeInteger(u.recNo))
      throw new DahuaApiError(`user ${u.userId}: the device gave no RecNo for it`, 400);
    if (!u.card) throw new NoCardForRecordError(u.userId);
    await this.call(
      'GET',
      `/cgi-bin/recordUpdater.cgi?action=update&name=AccessControlCard&recno=${u.recNo}&CardName=${enc(u.name)}&CardNo=${enc(u.card)}&UserID=${enc(u.userId)}`,
    );
  }

  async remove(api: UserApi, u: { userId: string; recNo?: number }): Promise<void> {
    if (api === 'accessUser') {
      await this.call('GET', `/cgi-bin/AccessUser.cgi?action=removeMulti&UserIDList[0]=${enc(u.userId)}`);
      return;
    }
    if (u.recNo === undefined || !Number.isSafeInteger(u.recNo))
      throw new DahuaApiError(`user ${u.userId}: the device gave no RecNo for it`, 400);
    await this.call('GET', `/cgi-bin/recordUpdater.cgi?action=remove&name=AccessControlCard&recno=${u.recNo}`);
  }

  /** The roster's card becomes the user's only card ('' : none). */
  private async setCard(userId: string, card: string, old: readonly string[]): Promise<void> {
    for (const c of old.filter((c) => c !== card))
      await this.call('GET', `/cgi-bin/AccessCard.cgi?action=removeMulti&CardNoList[0]=${enc(c)}`);
    if (card && !old.includes(card))
      await this.call('POST', '/cgi-bin/AccessCard.cgi?action=insertMulti', {
        CardList: [{ UserID: userId, CardNo: card, CardType: 0, CardStatus: 0 }],
      });
  }
}

function accessUser(u: { userId: string; name: string }) {
  return {
    UserID: u.userId,
    UserName: u.name,
    UserType: 0,
    Authority: 2,
    Doors: [0],
    TimeSections: [255],
    ValidFrom: '2000-01-01 00:00:00',
    ValidTo: '2037-12-31 23:59:59',
  };
}
