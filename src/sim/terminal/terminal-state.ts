/**
 * What the simulated terminal holds: users, the attendance log, its identity and clock.
 * Transports read it; real-time subscribers hear about each new punch.
 */
import { encodeZkTime } from '../../sources/zk/protocol/time.js';
import { generatePunches, generateTemplates, generateUsers } from './generate.js';
import { TerminalClock } from './terminal-clock.js';
import type { SimFirmware, SimPunch, SimTemplate, SimUser, TerminalSimOptions } from './types.js';
import { DEFAULT_USER_CAPACITY, UserStore } from './user-store.js';

export const DEFAULT_FIRMWARE = 'Ver 6.60 Apr 28 2015';
export const DEFAULT_SERIAL = 'SIM0000000001';
/** Attendance capacity reported by GET_FREE_SIZES. */
export const LOG_CAPACITY = 100_000;
export const USER_CAPACITY = DEFAULT_USER_CAPACITY;
export const DEFAULT_FP_VERSION = '10';

export type PunchListener = (p: SimPunch) => void;

/** Checks a punch the way the terminal would store it (throws RangeError on a bad one). */
export function normalizePunch(p: SimPunch): SimPunch {
  if (typeof p.userId !== 'string' || p.userId.length === 0 || Buffer.byteLength(p.userId) > 24) {
    throw new RangeError(`punch user id must be 1-24 bytes: ${JSON.stringify(p.userId)}`);
  }
  encodeZkTime(p.logTime); // throws on a time the terminal cannot store
  const byte = (v: number | undefined, dflt: number, what: string) => {
    const n = v ?? dflt;
    if (!Number.isInteger(n) || n < 0 || n > 255) throw new RangeError(`punch ${what} must be 0-255: ${n}`);
    return n;
  };
  return {
    userId: p.userId,
    logTime: p.logTime,
    verifyType: byte(p.verifyType, 1, 'verifyType'),
    state: byte(p.state, 0, 'state'),
  };
}

export function normalizeUser(u: SimUser): SimUser {
  if (!Number.isInteger(u.uid) || u.uid < 0 || u.uid > 0xffff)
    throw new RangeError(`user uid must be 0-65535: ${u.uid}`);
  if (typeof u.userId !== 'string' || u.userId.length === 0 || Buffer.byteLength(u.userId) > 24) {
    throw new RangeError(`user id must be 1-24 bytes: ${JSON.stringify(u.userId)}`);
  }
  const name = u.name ?? '';
  const password = u.password ?? '';
  if ((u.nameBytes ? u.nameBytes.length : Buffer.byteLength(name)) > 24)
    throw new RangeError(`user name must be at most 24 bytes: ${JSON.stringify(name)}`);
  if (Buffer.byteLength(password) > 8) throw new RangeError(`user ${u.userId}: password must be at most 8 bytes`);
  const privilege = u.privilege ?? 0;
  if (!Number.isInteger(privilege) || privilege < 0 || privilege > 255)
    throw new RangeError(`user ${u.userId}: privilege must be 0-255`);
  const card = u.card ?? 0;
  if (!Number.isInteger(card) || card < 0 || card > 0xffffffff)
    throw new RangeError(`user ${u.userId}: card must be 0-4294967295`);
  return {
    uid: u.uid,
    userId: u.userId,
    name,
    privilege,
    card,
    password,
    ...(u.nameBytes ? { nameBytes: Buffer.from(u.nameBytes) } : {}),
  };
}

export class TerminalState {
  serialNumber: string;
  readonly firmware: string;
  readonly commKey: number;
  readonly quirks: SimFirmware;
  readonly clock: TerminalClock;
  /** `~ZKFPVersion`: the fingerprint algorithm version. */
  readonly fpVersion: string;
  clearAttlogCount = 0;
  /** Times DISABLEDEVICE was received. */
  disableCount = 0;
  refreshCount = 0;
  writeCount = 0;
  /** False between DISABLEDEVICE and ENABLEDEVICE, whoever sent them and whether they are still connected. */
  enabled = true;
  /** Punches refused at the door while disabled: made again once the terminal is enabled. */
  private readonly heldAtDoor: SimPunch[] = [];
  /** Bumped on every change of the log or the users, so prepared datasets can be reused until then. */
  version = 0;
  /** Enrolled users and their fingerprint templates. */
  readonly people: UserStore;
  private punchLog: SimPunch[];
  /** Records the log holds at most: see TerminalSimOptions.logCapacity. */
  readonly logCapacity: number;
  private readonly listeners = new Set<PunchListener>();

  constructor(opts: TerminalSimOptions) {
    this.serialNumber = opts.serialNumber ?? DEFAULT_SERIAL;
    this.firmware = opts.firmware ?? DEFAULT_FIRMWARE;
    this.commKey = opts.commKey ?? 0;
    this.quirks = { ...opts.firmwareQuirks };
    this.fpVersion = opts.fpVersion ?? DEFAULT_FP_VERSION;
    this.clock = new TerminalClock(opts.clock);
    let users = (opts.users ?? []).map(normalizeUser);
    this.punchLog = (opts.punches ?? []).map(normalizePunch);
    const gen = opts.generate;
    let generatedTemplates: SimTemplate[] = [];
    if (gen) {
      const more = generateUsers(gen.users, users, gen.seed);
      // concat, not push(...): spreading 100k+ records would overflow the call stack.
      users = users.concat(more);
      this.punchLog = this.punchLog.concat(generatePunches(gen.punches, users, gen));
      generatedTemplates = generateTemplates(more, gen.fingersPerUser ?? 0, gen.seed);
    }
    this.people = new UserStore(users, opts.userCapacity, opts.fingerprintCapacity);
    this.logCapacity = opts.logCapacity ?? LOG_CAPACITY;
    if (!Number.isSafeInteger(this.logCapacity) || this.logCapacity < 1)
      throw new RangeError(`log capacity must be a whole number of at least 1: ${this.logCapacity}`);
    for (const t of [...(opts.templates ?? []), ...generatedTemplates]) this.loadTemplate(t);
  }

  users(): SimUser[] {
    return this.people.view().map((u) => ({ ...u }));
  }

  /** A template given at start; its user must exist. */
  private loadTemplate(t: SimTemplate): void {
    const user = this.people.view().find((u) => u.userId === t.userId);
    if (!user) throw new RangeError(`template of user ${t.userId}, who is not enrolled`);
    if (!Number.isInteger(t.finger) || t.finger < 0 || t.finger > 9) throw new RangeError(`finger ${t.finger}: 0-9`);
    if (!Buffer.isBuffer(t.template) || t.template.length === 0 || t.template.length > 0xfff0) {
      throw new RangeError(`template of user ${t.userId} finger ${t.finger}: 1..65520 bytes`);
    }
    this.people.putTemplate({ uid: user.uid, finger: t.finger, valid: t.valid ?? 1, template: t.template });
  }

  /** After a change of the users or templates. */
  usersChanged(): void {
    this.version += 1;
    this.writeCount += 1;
  }

  punches(): SimPunch[] {
    return this.punchLog.map((p) => ({ ...p }));
  }

  /** Live views for the dataset encoders (not copied: datasets can be 100k records). */
  userView(): readonly SimUser[] {
    return this.people.view();
  }

  punchView(): readonly SimPunch[] {
    return this.punchLog;
  }

  addPunch(p: SimPunch): SimPunch {
    const punch = normalizePunch(p);
    // A full log writes over its oldest record (cyclic deletion): the count stays the same.
    if (this.punchLog.length >= this.logCapacity) this.punchLog.shift();
    this.punchLog.push(punch);
    this.version += 1;
    for (const l of this.listeners) l(punch);
    return punch;
  }

  /** A punch at the door: made now, or (disabled) once the terminal is enabled again. */
  punchAtDoor(p: SimPunch): void {
    if (this.enabled) this.addPunch(p);
    else this.heldAtDoor.push(p);
  }

  /** DISABLEDEVICE / ENABLEDEVICE: enabled again, the people refused at the door punch again. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    if (!enabled) this.disableCount += 1;
    if (enabled) for (const p of this.heldAtDoor.splice(0)) this.addPunch(p);
  }

  clearAttlog(): void {
    this.punchLog = [];
    this.version += 1;
    this.clearAttlogCount += 1;
  }

  onPunch(l: PunchListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}
