/**
 * The people of the simulated Dahua terminal, by the user API of its firmware:
 * - accessUser: AccessUser.cgi (startFind/doFind/stopFind, insertMulti/updateMulti/removeMulti,
 *   JSON `UserList`, `UserIDList[i]`) and AccessCard.cgi (`CardList`, `CardNoList[i]`);
 * - recordUpdater: `AccessControlCard` records (recordFinder.cgi find, recordUpdater.cgi
 *   insert/update/remove with `recno`), a card number each: an insert or update without CardNo is
 *   refused (the record is the card), and the card is kept as written, even when equal to the UserID.
 * A firmware answers the other API with 400 (`Error\r\nBad Request!`), as a device without it does.
 */
export interface SimUser {
  UserID: string;
  UserName: string;
  /** 1 administrator, 2 user. */
  Authority: number;
  cards: string[];
  /** recordUpdater firmware: the card record's RecNo. */
  recNo?: number;
}

interface Answer {
  status: number;
  text: string;
  type?: string;
}

const OK: Answer = { status: 200, text: 'OK\r\n' };
const BAD: Answer = { status: 400, text: 'Error\r\nBad Request!\r\n' };

export class SimUsers {
  private readonly users = new Map<string, SimUser>();
  private nextRecNo = 1;
  private finds = new Map<number, { rows: Record<string, unknown>[] }>();
  private nextToken = 100;

  constructor(
    readonly api: 'accessUser' | 'recordUpdater',
    initial: readonly SimUser[],
  ) {
    for (const u of initial) this.users.set(u.UserID, { ...u, cards: [...u.cards], recNo: this.nextRecNo++ });
  }

  list(): SimUser[] {
    return [...this.users.values()].map((u) => ({ ...u, cards: [...u.cards] }));
  }

  cardRecordLines(): string {
    const us = [...this.users.values()];
    const out = [`found=${us.length}`];
    us.forEach((u, i) => {
      out.push(
        `records[${i}].RecNo=${u.recNo}`,
        `records[${i}].CardName=${u.UserName}`,
        `records[${i}].CardNo=${u.cards[0] ?? ''}`,
        `records[${i}].UserID=${u.UserID}`,
        `records[${i}].CardStatus=0`,
      );
    });
    return out.join('\r\n') + '\r\n';
  }

  handle(path: string, action: string, q: URLSearchParams, body: string): Answer | undefined {
    const cgi = /^\/cgi-bin\/(AccessUser|AccessCard|recordUpdater)\.cgi$/.exec(path)?.[1];
    if (!cgi) return undefined;
    if ((cgi === 'recordUpdater') !== (this.api === 'recordUpdater')) return BAD;
    if (cgi === 'recordUpdater') return this.recordUpdater(action, q);
    const json = (v: unknown): Answer => ({ status: 200, text: JSON.stringify(v), type: 'application/json' });
    const parsed = () => {
      try {
        return JSON.parse(body || '{}') as Record<string, unknown>;
      } catch {
        return undefined;
      }
    };
    if (action === 'startFind') {
      const token = this.nextToken++;
      const rows =
        cgi === 'AccessUser'
          ? [...this.users.values()].map((u) => ({
              UserID: u.UserID,
              UserName: u.UserName,
              UserType: 0,
              Authority: u.Authority,
            }))
          : [...this.users.values()].flatMap((u) =>
              u.cards.map((c) => ({ CardNo: c, UserID: u.UserID, CardType: 0, CardStatus: 0 })),
            );
      this.finds.set(token, { rows });
      return json({ Token: token, Total: rows.length });
    }
    if (action === 'doFind') {
      const f = this.finds.get(Number(q.get('Token')));
      if (!f) return BAD;
      const offset = Number(q.get('Offset') ?? 0);
      const count = Math.min(Number(q.get('Count') ?? 100), 100);
      return json({ Info: f.rows.slice(offset, offset + count) });
    }
    if (action === 'stopFind') {
      this.finds.delete(Number(q.get('Token')));
      return OK;
    }
    const list = (name: string) => [...q.entries()].filter(([k]) => k.startsWith(`${name}[`)).map(([, v]) => v);
    if (cgi === 'AccessUser') {
      if (action === 'insertMulti' || action === 'updateMulti') {
        const b = parsed();
        const ul = Array.isArray(b?.UserList) ? (b.UserList as Record<string, unknown>[]) : undefined;
        if (!ul) return BAD;
        for (const u of ul) {
          const id = String(u.UserID ?? '');
          if (!id) return BAD;
          const had = this.users.get(id);
          if (action === 'insertMulti' && had) return BAD; // insertMulti of an existing user is refused
          if (action === 'updateMulti' && !had) return BAD;
          this.users.set(id, {
            UserID: id,
            UserName: String(u.UserName ?? ''),
            Authority: Number(u.Authority ?? 2),
            cards: had?.cards ?? [],
          });
        }
        return OK;
      }
      if (action === 'removeMulti') {
        for (const id of list('UserIDList')) this.users.delete(id);
        return OK;
      }
    }
    if (cgi === 'AccessCard') {
      if (action === 'insertMulti') {
        const cl = parsed()?.CardList;
        if (!Array.isArray(cl)) return BAD;
        for (const c of cl as Record<string, unknown>[]) {
          const u = this.users.get(String(c.UserID ?? ''));
          if (!u) return BAD;
          u.cards.push(String(c.CardNo ?? ''));
        }
        return OK;
      }
      if (action === 'removeMulti') {
        for (const no of list('CardNoList'))
          for (const u of this.users.values()) u.cards = u.cards.filter((c) => c !== no);
        return OK;
      }
    }
    return BAD;
  }

  private recordUpdater(action: string, q: URLSearchParams): Answer {
    if (q.get('name') !== 'AccessControlCard') return BAD;
    const byRecNo = (n: number) => [...this.users.values()].find((u) => u.recNo === n);
    if (action === 'insert') {
      const id = q.get('UserID') ?? '';
      const card = q.get('CardNo') ?? '';
      if (!id || !card || this.users.has(id)) return BAD;
      const recNo = this.nextRecNo++;
      this.users.set(id, {
        UserID: id,
        UserName: q.get('CardName') ?? '',
        Authority: 2,
        cards: [card],
        recNo,
      });
      return { status: 200, text: `RecNo=${recNo}\r\n` };
    }
    const u = byRecNo(Number(q.get('recno')));
    if (!u) return BAD;
    if (action === 'update') {
      if (q.has('CardNo') && !q.get('CardNo')) return BAD;
      if (q.has('CardName')) u.UserName = q.get('CardName')!;
      if (q.has('CardNo')) u.cards = [q.get('CardNo')!];
      return OK;
    }
    if (action === 'remove') {
      this.users.delete(u.UserID);
      return OK;
    }
    return BAD;
  }
}
