/**
 * The simulated terminal's enrolled users and their fingerprint templates, with the limits a
 * real terminal has: a user capacity, a template capacity, one user per uid and per user id.
 * Templates are keyed by uid, as on the device; deleting a user deletes its templates.
 */
import type { SimTemplate, SimUser } from './types.js';

export const DEFAULT_USER_CAPACITY = 3_000;
export const DEFAULT_FINGERPRINT_CAPACITY = 3_000;

/** What a refused write answers (the command handlers turn it into ACK_ERROR). */
export class WriteRefused extends Error {
  override name = 'WriteRefused';
}

export interface StoredTemplate {
  uid: number;
  finger: number;
  valid: number;
  template: Buffer;
}

export class UserStore {
  private list: SimUser[];
  /** uid -> finger -> template. */
  private readonly fingers = new Map<number, Map<number, StoredTemplate>>();

  constructor(
    users: SimUser[],
    readonly userCapacity = DEFAULT_USER_CAPACITY,
    readonly fingerprintCapacity = DEFAULT_FINGERPRINT_CAPACITY,
  ) {
    this.list = users;
  }

  view(): readonly SimUser[] {
    return this.list;
  }

  /** Replaces the whole list (generated data at start). */
  replaceAll(users: SimUser[]): void {
    this.list = users;
  }

  templateCount(): number {
    let n = 0;
    for (const m of this.fingers.values()) n += m.size;
    return n;
  }

  /** All templates, by uid then finger. */
  templateView(): StoredTemplate[] {
    const out: StoredTemplate[] = [];
    for (const uid of [...this.fingers.keys()].sort((a, b) => a - b)) {
      const m = this.fingers.get(uid)!;
      for (const f of [...m.keys()].sort((a, b) => a - b)) out.push(m.get(f)!);
    }
    return out;
  }

  /** Templates by user id, for the public API (copies). */
  templatesByUserId(): SimTemplate[] {
    const idOf = new Map(this.list.map((u) => [u.uid, u.userId]));
    return this.templateView().map((t) => ({
      userId: idOf.get(t.uid) ?? '',
      finger: t.finger,
      valid: t.valid,
      template: Buffer.from(t.template),
    }));
  }

  /** Checks that `user` can be stored (throws WriteRefused), without storing it. */
  checkPut(user: SimUser, extraNew = 0): void {
    const clash = this.list.find((u) => u.userId === user.userId && u.uid !== user.uid);
    if (clash) throw new WriteRefused(`user id ${user.userId} is held by uid ${clash.uid}`);
    const isNew = !this.list.some((u) => u.uid === user.uid);
    if (isNew && this.list.length + extraNew >= this.userCapacity) {
      throw new WriteRefused(`user capacity ${this.userCapacity} reached`);
    }
  }

  /** Creates or replaces the user at its uid. */
  put(user: SimUser): void {
    this.checkPut(user);
    const i = this.list.findIndex((u) => u.uid === user.uid);
    if (i >= 0) this.list[i] = user;
    else {
      // Kept in uid order, as terminals list their users.
      const at = this.list.findIndex((u) => u.uid > user.uid);
      this.list.splice(at < 0 ? this.list.length : at, 0, user);
    }
  }

  delete(uid: number): void {
    const i = this.list.findIndex((u) => u.uid === uid);
    if (i < 0) throw new WriteRefused(`no user at uid ${uid}`);
    this.list.splice(i, 1);
    this.fingers.delete(uid);
  }

  /** Users and templates together, all or nothing (SAVE_USERTEMPS). */
  putWithTemplates(users: SimUser[], templates: StoredTemplate[]): void {
    const uids = new Set(users.map((u) => u.uid));
    if (uids.size !== users.length) throw new WriteRefused('the same uid twice in one save');
    let added = 0;
    for (const u of users) {
      this.checkPut(u, added);
      if (!this.list.some((x) => x.uid === u.uid)) added += 1;
    }
    const known = new Set([...this.list.map((u) => u.uid), ...uids]);
    let newTemplates = 0;
    for (const t of templates) {
      if (!known.has(t.uid)) throw new WriteRefused(`template for uid ${t.uid}, which is no user`);
      if (!this.fingers.get(t.uid)?.has(t.finger)) newTemplates += 1;
    }
    if (this.templateCount() + newTemplates > this.fingerprintCapacity) {
      throw new WriteRefused(`fingerprint capacity ${this.fingerprintCapacity} reached`);
    }
    for (const u of users) this.put(u);
    for (const t of templates) this.putTemplate(t);
  }

  /** Loads a template of an existing user (start-up data). */
  putTemplate(t: StoredTemplate): void {
    let m = this.fingers.get(t.uid);
    if (!m) this.fingers.set(t.uid, (m = new Map()));
    m.set(t.finger, { ...t, template: Buffer.from(t.template) });
  }
}
