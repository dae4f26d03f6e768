/**
 * Push terminal simulator (ZKTeco ADMS / iclock firmware): a terminal that makes punches,
 * uploads them in batches to a server, resends what was not answered OK, polls for commands
 * and applies them, with fault switches. Used by `punchgate sim push-terminal`, the demo and
 * the tests of the receiver. It speaks HTTP only: it shares no code with the receiver.
 */
import { createHash } from 'node:crypto';
import { systemClock } from '../../util/clock.js';
import { seededRandom } from '../../util/seeded-random.js';
import { commandEffect, parseCommands, resultLine, userLine, type CommandEffect } from './commands.js';
import { SimHttp, type SimAnswer } from './http.js';
import {
  AttendanceLog,
  attlogLine,
  generatePushUsers,
  MALFORMED_LINES,
  MALFORMED_RTLOG_LINES,
  rtlogLine,
  userRow,
} from './log.js';
import type {
  PushSimCommand,
  PushSimFaults,
  PushSimRecord,
  PushSimStats,
  PushSimUser,
  PushSimVariant,
  PushTerminalSim,
  PushTerminalSimOptions,
} from './types.js';

export type * from './types.js';
export { generatePushUsers } from './log.js';

export const DEFAULT_PUSH_SERIAL = 'SIMPUSH0000001';
export const DEFAULT_PUSH_FIRMWARE = 'Ver 8.0.4.2-sim';

const DEFAULT_FAULTS: PushSimFaults = {
  malformedRate: 0,
  duplicateRate: 0,
  unansweredRate: 0,
  dropMidBodyRate: 0,
  nonPunchRate: 0,
  seed: 1,
};

/** What a Security PUSH terminal tells about itself when it registers (keys as SpeedFace firmware sends them). */
const REGISTRY_FACTS = (firmware: string) =>
  [
    'DeviceType=acc',
    '~DeviceName=SpeedFace-V5L-sim',
    `FirmVer=${firmware}`,
    'PushVersion=3.1.2',
    '~MaxUserCount=10000',
    '~MaxAttLogCount=100000',
    '~MaxUserPhotoCount=10000',
    '~MaxFace7Count=6000',
    '~MaxFingerCount=6000',
    'MaxPackageSize=2048000',
    'LockCount=1',
    'ReaderCount=2',
    'AuxInCount=1',
    'AuxOutCount=1',
    'MachineType=101',
    '~IsOnlyRFMachine=0',
    'IPAddress=127.0.0.1',
    'CommKey=0',
  ].join(',');

/** How long the simulated terminal is away after REBOOT. */
const REBOOT_MS = 300;

export function startPushTerminalSim(opts: PushTerminalSimOptions): PushTerminalSim {
  return new PushTerminal(opts);
}

class PushTerminal implements PushTerminalSim {
  readonly serial: string;
  private readonly http: SimHttp;
  private readonly clock;
  private faults: PushSimFaults;
  private rnd: () => number;
  private readonly userList: PushSimUser[];
  private readonly log: AttendanceLog;
  /** Upload position: every record up to this stamp is uploaded (as far as this terminal knows). */
  private pointer = 0;
  private readonly ackedSeqs = new Set<number>();
  /** Records asked for again by the server (DATA QUERY ATTLOG): uploaded without a stamp. */
  private requery: PushSimRecord[] = [];
  private usersToUpload = true;
  /** A users query to answer on querydata (queryDataAnswers): its command id. */
  private queryAnswerId: string | undefined;
  /** PUSH 2.0.1: whether the option block's bit-string TransFlag asks for punches. */
  private transAttlog = true;
  private registered = false;
  private readonly security: boolean;
  private readonly variant: PushSimVariant;
  /** Security PUSH: `Cookie: token=` once registered and configured. */
  private token: string | undefined;
  private delayMs: number;
  private errorDelayMs: number;
  private nextPollAt = 0;
  private pollCount = 0;
  private readonly commandLog: PushSimCommand[] = [];
  private readonly st: PushSimStats = {
    handshakes: 0,
    okUploads: 0,
    failedRequests: 0,
    resentAfterOk: 0,
    intentionalResends: 0,
    malformedSent: 0,
    lastError: null,
    serverStamp: null,
    timeZone: null,
    connections: 0,
    registrations: 0,
    registeredHandshakes: 0,
    lastTableAnswer: null,
    stateUploads: 0,
  };
  private stopped = false;
  private wake: (() => void) | undefined;
  private punchTimer: NodeJS.Timeout | undefined;
  private readonly loop: Promise<void>;

  constructor(private readonly opts: PushTerminalSimOptions) {
    this.serial = opts.serial;
    this.http = new SimHttp(opts.server, opts.localAddress);
    this.clock = opts.clock ?? systemClock;
    this.faults = { ...DEFAULT_FAULTS, ...opts.faults };
    this.rnd = seededRandom(this.faults.seed);
    const users = opts.users ?? 10;
    this.userList =
      typeof users === 'number' ? generatePushUsers(users, this.faults.seed) : users.map((u) => ({ ...u }));
    this.log = new AttendanceLog(
      () => this.userList,
      {
        timeMode: opts.timeMode ?? 'clock',
        sequenceStart: opts.sequenceStart,
        timezone: opts.timezone,
        seed: this.faults.seed,
      },
      // Its clock may run off the box's (a zone never set): its punches carry its time.
      () => this.clock.now() + (opts.clockOffsetSeconds ?? 0) * 1000,
    );
    this.security = opts.protocol === 'security';
    this.variant = opts.variant ?? {};
    for (let i = 0; i < (this.variant.clockUnsetRows ?? 0); i++) this.log.addClockUnset();
    this.log.addPast(opts.punches ?? 0);
    this.delayMs = opts.delayMs ?? 10_000;
    this.errorDelayMs = opts.errorDelayMs ?? 30_000;
    this.loop = this.run();
  }

  private say(line: string): void {
    this.opts.log?.(`${this.serial}: ${line}`);
  }

  private path(base: string, params: Record<string, string> = {}): string {
    const q = new URLSearchParams({ SN: this.serial, ...params });
    return `/iclock/${base}?${q.toString()}`;
  }

  private request(method: 'GET' | 'POST', path: string, body?: string, extra: object = {}): Promise<SimAnswer> {
    const headers: Record<string, string> = {};
    if (this.token) headers.Cookie = `token=${this.token}`;
    if (this.variant.connectionClose) headers.Connection = 'close';
    return this.http.send({
      method,
      path,
      body,
      timeoutMs: this.opts.requestTimeoutMs ?? 10_000,
      headers,
      noContentType: this.variant.noContentType,
      ...extra,
    });
  }

  /**
   * The answer was `OK...` with status 200; anything else is a failure (noted). `upload`: PUSH
   * 2.0.1 firmware takes only a bare `OK` after an upload.
   */
  private ok(a: SimAnswer, what: string, upload = false): boolean {
    const bare = upload && this.variant.dialect === '2.0.1';
    if (a.kind === 'answer' && a.status === 200 && (bare ? a.body.trim() === 'OK' : a.body.startsWith('OK')))
      return true;
    // stop() hangs up the connection under a request on the wire (Ctrl-C between two polls): that
    // request was cut by this terminal, not failed by the server; counted, the summary blamed it.
    if (this.stopped && a.kind === 'failed') return false;
    this.st.failedRequests++;
    this.st.lastError =
      a.kind === 'answer' ? `${what}: HTTP ${a.status} ${a.body.trim().slice(0, 80)}` : `${what}: ${a.reason}`;
    this.say(`failed ${this.st.lastError}`);
    return false;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const progressed = await this.step().catch((e: unknown) => {
        this.st.lastError = e instanceof Error ? e.message : String(e);
        return false;
      });
      if (this.stopped) break;
      if (progressed === 'error') {
        this.registered = false;
        await this.sleep(this.errorDelayMs);
      } else if (!progressed) {
        await this.sleep(Math.max(0, this.nextPollAt - this.clock.now()));
      }
    }
  }

  /** One thing to do: handshake, poll, or upload. True when there may be more to do at once. */
  private async step(): Promise<boolean | 'error'> {
    if (!this.registered) return (await this.handshake()) ? true : 'error';
    if (this.clock.now() >= this.nextPollAt) return (await this.poll()) ? true : 'error';
    if (this.usersToUpload) return (await this.uploadUsers()) ? true : 'error';
    if (this.requery.length > 0) return (await this.uploadRequery()) ? true : 'error';
    if (this.pointer < this.log.size && this.transAttlog) return (await this.upload()) ? true : 'error';
    return false;
  }

  private async handshake(): Promise<boolean> {
    if (this.security) return this.securityHandshake();
    const legacy = this.variant.dialect === '2.0.1';
    const pushver = this.opts.pushVersion ?? (legacy ? undefined : '2.4.1');
    const a = await this.request(
      'GET',
      this.path('cdata', { options: 'all', ...(pushver ? { pushver } : {}), language: '69' }),
    );
    if (a.kind !== 'answer' || a.status !== 200 || !a.body.startsWith('GET OPTION FROM')) {
      this.ok(a, 'handshake');
      return false;
    }
    const options = new Map(
      a.body
        .split('\n')
        .map((l) => l.split('='))
        .filter((kv) => kv.length >= 2)
        .map(([k, ...v]) => [k!.trim(), v.join('=').trim()]),
    );
    // PUSH 2.0.1 knows the stamp by its old name only, and the TransFlag as a bit string.
    const stamp = options.get(legacy ? 'Stamp' : 'ATTLOGStamp') ?? '0';
    if (legacy)
      this.transAttlog = /^[01]{10}$/.test(options.get('TransFlag') ?? '') && options.get('TransFlag')![0] === '1';
    this.st.serverStamp = stamp;
    this.st.timeZone = options.get('TimeZone') ?? null;
    // As push firmware does: resume after the server's stamp ("0" or "None": from the start).
    this.pointer = /^\d+$/.test(stamp) ? Math.min(Number(stamp), this.log.size) : 0;
    const delay = Number(options.get('Delay'));
    const errorDelay = Number(options.get('ErrorDelay'));
    if (this.opts.delayMs === undefined && delay > 0) this.delayMs = delay * 1000;
    if (this.opts.errorDelayMs === undefined && errorDelay > 0) this.errorDelayMs = errorDelay * 1000;
    this.st.handshakes++;
    this.registered = true;
    this.nextPollAt = 0;
    this.say(`registered, ATTLOGStamp=${stamp}`);
    return true;
  }

  /**
   * Security PUSH: the handshake; `registry=ok` (registered) carries the configuration, anything
   * else means register (`/iclock/registry`) and fetch the configuration (`/iclock/push`). From
   * then on every request carries `Cookie: token=md5(RegistryCode + SN + SessionID)`.
   */
  private async securityHandshake(): Promise<boolean> {
    this.token = undefined;
    const params: Record<string, string> = {
      options: 'all',
      pushver: this.opts.pushVersion ?? '3.1.2',
      language: '69',
    };
    if (this.variant.deviceTypeInHandshake !== false) params.DeviceType = 'acc';
    const a = await this.request('GET', this.path('cdata', params));
    if (a.kind !== 'answer' || a.status !== 200) return this.ok(a, 'handshake');
    let config = keyValues(a.body);
    let code = config.get('RegistryCode');
    if (a.body.startsWith('registry=ok') && code && config.get('SessionID')) {
      this.st.registeredHandshakes++;
    } else {
      const reg = await this.request(
        'POST',
        this.path('registry'),
        REGISTRY_FACTS(this.opts.firmware ?? DEFAULT_PUSH_FIRMWARE),
      );
      code = reg.kind === 'answer' && reg.status === 200 ? keyValues(reg.body).get('RegistryCode') : undefined;
      if (!code) return this.ok(reg, 'registry');
      this.st.registrations++;
      const push = await this.request('POST', this.path('push'), '');
      if (push.kind !== 'answer' || push.status !== 200) return this.ok(push, 'push');
      config = keyValues(push.body);
    }
    const session = config.get('SessionID');
    if (!session) {
      this.st.lastError = 'no SessionID in the configuration';
      return false;
    }
    this.token = createHash('md5').update(`${code}${this.serial}${session}`).digest('hex');
    const delay = Number(config.get('RequestDelay'));
    const errorDelay = Number(config.get('ErrorDelay'));
    if (this.opts.delayMs === undefined && delay > 0) this.delayMs = delay * 1000;
    if (this.opts.errorDelayMs === undefined && errorDelay > 0) this.errorDelayMs = errorDelay * 1000;
    this.st.handshakes++;
    this.registered = true;
    this.nextPollAt = 0;
    this.say(`registered (Security PUSH), RegistryCode=${code}`);
    return true;
  }

  private infoParam(): string {
    return `${this.opts.firmware ?? DEFAULT_PUSH_FIRMWARE},${this.userList.length},0,${this.log.size},127.0.0.1,10,7,0,0`;
  }

  private async poll(): Promise<boolean> {
    const params: Record<string, string> = this.pollCount++ % 10 === 0 ? { INFO: this.infoParam() } : {};
    const a = await this.request('GET', this.path('getrequest', params));
    // `OK`, or command lines `C:<id>:...`.
    if (a.kind !== 'answer' || a.status !== 200 || !/^(OK|C:)/.test(a.body)) return this.ok(a, 'getrequest');
    this.nextPollAt = this.clock.now() + this.delayMs;
    const commands = parseCommands(a.body);
    if (commands.length === 0) return true;
    const results: string[] = [];
    const effects: CommandEffect[] = [];
    for (const c of commands) {
      const effect = commandEffect(c.command, this.security ? 'security' : 'attendance');
      const code = this.apply(effect);
      this.commandLog.push({ id: c.id, command: c.command, returnCode: code });
      this.say(`command ${c.id} ${c.command.split('\t')[0]} -> ${code}`);
      // A BioFace A1 answers a users query on querydata, with the command's id, and nothing else.
      if (this.variant.queryDataAnswers && effect.kind === 'query-users') {
        this.queryAnswerId = c.id;
        continue;
      }
      results.push(
        this.variant.multilineResults
          ? resultLine(c.id, code, c.command).split('&').join('\n')
          : resultLine(c.id, code, c.command),
      );
      if (effect.kind === 'info') results.push(...this.infoLines());
      effects.push(effect);
    }
    if (results.length > 0) {
      const r = await this.request('POST', this.path('devicecmd'), results.join('\n') + '\n');
      if (!this.ok(r, 'devicecmd')) return false;
    }
    if (this.security && this.pollCount % 5 === 1) await this.uploadState();
    if (effects.some((e) => e.kind === 'reboot')) {
      this.say('rebooting');
      this.registered = false;
      await this.sleep(REBOOT_MS);
    } else if (effects.some((e) => e.kind === 'check')) {
      this.registered = false;
    }
    return true;
  }

  private infoLines(): string[] {
    return [
      '~DeviceName=punchgate push simulator',
      `FWVersion=${this.opts.firmware ?? DEFAULT_PUSH_FIRMWARE}`,
      `UserCount=${this.userList.length}`,
      `TransactionCount=${this.log.size}`,
      'IPAddress=127.0.0.1',
      '~ComKey=0',
    ];
  }

  /** Applies a command; returns the `Return=` code. */
  private apply(e: CommandEffect): number {
    switch (e.kind) {
      case 'info':
      case 'check':
      case 'reboot':
        return 0;
      case 'log':
        this.nextPollAt = this.clock.now() + this.delayMs;
        return 0;
      case 'query-attlog':
        this.requery.push(...this.log.between(e.from, e.to));
        return 0;
      case 'query-users':
        this.usersToUpload = true;
        return 0;
      case 'update-user': {
        const i = this.userList.findIndex((u) => u.pin === e.user.pin);
        if (i >= 0) this.userList[i] = e.user;
        else this.userList.push(e.user);
        return 0;
      }
      case 'delete-user': {
        const i = this.userList.findIndex((u) => u.pin === e.pin);
        if (i >= 0) this.userList.splice(i, 1);
        return 0;
      }
      case 'authorize-user':
        // Firmware refuses an authorisation for a user it does not hold.
        return this.userList.some((u) => u.pin === e.pin) ? 0 : -1;
      case 'unsupported':
        return -1002;
    }
  }

  /** Security PUSH: a door-state row (not a punch), now and then. */
  private async uploadState(): Promise<void> {
    const now = this.records().at(-1)?.logTime ?? '2026-01-01 00:00:00';
    const a = await this.request(
      'POST',
      this.path('cdata', { table: 'rtstate' }),
      `time=${now}\tsensor=01\trelay=00\talarm=0000000000000000\tdoor=01\n`,
    );
    if (this.ok(a, 'rtstate upload')) this.st.stateUploads++;
  }

  private async uploadUsers(): Promise<boolean> {
    if (this.queryAnswerId !== undefined) {
      const body = this.userList.map((u, i) => userRow(u, i + 1)).join('\n') + '\n';
      const n = String(this.userList.length);
      const query = {
        type: 'tabledata',
        tablename: 'user',
        cmdid: this.queryAnswerId,
        count: n,
        packcnt: '1',
        packidx: '1',
      };
      const a = await this.request('POST', this.path('querydata', query), body);
      if (a.kind !== 'answer' || a.status !== 200 || !/^user=\d+/.test(a.body)) return this.ok(a, 'querydata upload');
      this.st.lastTableAnswer = a.body.trim();
      this.queryAnswerId = undefined;
      this.usersToUpload = false;
      return true;
    }
    if (this.security) {
      const body = this.userList.map((u, i) => userRow(u, i + 1)).join('\n') + '\n';
      const a = await this.request(
        'POST',
        this.path('cdata', { table: 'tabledata', tablename: 'user', count: String(this.userList.length) }),
        body,
      );
      if (a.kind !== 'answer' || a.status !== 200 || !/^user=\d+/.test(a.body)) return this.ok(a, 'tabledata upload');
      this.st.lastTableAnswer = a.body.trim();
      this.usersToUpload = false;
      return true;
    }
    const body = this.userList.map(userLine).join('\n') + '\n';
    const a = await this.request(
      'POST',
      this.path('cdata', { table: 'OPERLOG', Stamp: String(this.userList.length) }),
      body,
    );
    if (!this.ok(a, 'OPERLOG upload', true)) return false;
    this.usersToUpload = false;
    return true;
  }

  private async uploadRequery(): Promise<boolean> {
    const batch = this.requery.slice(0, this.opts.batchSize ?? 100);
    const a = await this.request(
      'POST',
      this.path('cdata', { table: this.security ? 'rtlog' : 'ATTLOG' }),
      batch.map((r) => (this.security ? rtlogLine(r) : attlogLine(r, this.variant.attlogFields))).join('\n') + '\n',
    );
    if (!this.ok(a, 'ATTLOG query upload')) return false;
    this.st.intentionalResends += batch.length;
    for (const r of batch) this.ackedSeqs.add(r.seq);
    this.requery = this.requery.slice(batch.length);
    return true;
  }

  private async upload(): Promise<boolean> {
    const batch = this.log.after(this.pointer, this.opts.batchSize ?? 100);
    const stamp = this.variant.stamp ?? String(batch.at(-1)!.seq);
    this.st.resentAfterOk += batch.filter((r) => this.ackedSeqs.has(r.seq)).length;
    const lines = batch.map((r) => (this.security ? rtlogLine(r) : attlogLine(r, this.variant.attlogFields)));
    if (this.rnd() < this.faults.malformedRate) {
      const list = this.security ? MALFORMED_RTLOG_LINES : MALFORMED_LINES;
      const bad = list[Math.floor(this.rnd() * list.length)]!;
      lines.splice(Math.floor(this.rnd() * (lines.length + 1)), 0, bad);
      this.st.malformedSent++;
    }
    // Security PUSH firmware leaves the last line without its LF.
    const body = lines.join('\n') + (this.security ? '' : '\n');
    const path = this.security
      ? this.path('cdata', { table: 'rtlog' })
      : this.path('cdata', { table: 'ATTLOG', Stamp: stamp });
    const dropMidBody = this.rnd() < this.faults.dropMidBodyRate;
    const hangUpBeforeAnswer = !dropMidBody && this.rnd() < this.faults.unansweredRate;
    const a = await this.request('POST', path, body, { dropMidBody, hangUpBeforeAnswer });
    if (!this.ok(a, `ATTLOG upload of ${batch.length}`, true)) return false;
    this.say(
      `uploaded ${batch.length} ${this.security ? 'event' : 'punch'}${batch.length === 1 ? '' : this.security ? 's' : 'es'}${this.security ? '' : ` (Stamp=${stamp})`}: ${a.kind === 'answer' ? a.body.trim() : ''}`,
    );
    this.st.okUploads++;
    for (const r of batch) this.ackedSeqs.add(r.seq);
    this.pointer = Math.max(this.pointer, batch.at(-1)!.seq);
    if (this.rnd() < this.faults.duplicateRate) {
      this.st.intentionalResends += batch.length;
      const again = await this.request('POST', path, body);
      this.ok(again, 'duplicate ATTLOG upload (fault)');
    }
    return true;
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const t = setTimeout(done, ms);
      this.wake = done;
    });
  }

  punch(pin?: string): PushSimRecord {
    const r = this.log.add(pin);
    this.maybeOther();
    this.wake?.();
    return r;
  }

  addPunches(n: number): PushSimRecord[] {
    const out = Array.from({ length: n }, () => {
      const r = this.log.add();
      this.maybeOther();
      return r;
    });
    this.wake?.();
    return out;
  }

  /** Security PUSH: now and then a refusal, an unregistered card or a door opening after a pass. */
  private maybeOther(): void {
    if (this.security && this.faults.nonPunchRate > 0 && this.rnd() < this.faults.nonPunchRate) this.log.addOther();
  }

  passes(): PushSimRecord[] {
    return this.log.all().filter((r) => (r.kind ?? 'pass') === 'pass');
  }

  records(): PushSimRecord[] {
    return this.log.all();
  }

  acked(): PushSimRecord[] {
    return this.log.all().filter((r) => this.ackedSeqs.has(r.seq));
  }

  pending(): number {
    return this.log.size - this.log.all().filter((r) => this.ackedSeqs.has(r.seq)).length;
  }

  backlog(): number {
    return this.log.size - this.pointer + this.requery.length;
  }

  users(): PushSimUser[] {
    return this.userList.map((u) => ({ ...u }));
  }

  commands(): PushSimCommand[] {
    return [...this.commandLog];
  }

  stats(): PushSimStats {
    return { ...this.st, connections: this.http.connections };
  }

  setFaults(f: Partial<PushSimFaults>): void {
    this.faults = { ...this.faults, ...f };
    if (f.seed !== undefined) this.rnd = seededRandom(f.seed);
  }

  startPunching(everyMs: number): void {
    this.stopPunching();
    this.punchTimer = setInterval(() => this.punch(), everyMs);
  }

  stopPunching(): void {
    clearInterval(this.punchTimer);
    this.punchTimer = undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopPunching();
    this.wake?.();
    this.http.close();
    await this.loop;
  }
}

/** `key=value` lines of an answer. */
function keyValues(body: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of body.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq > 0) out.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return out;
}
