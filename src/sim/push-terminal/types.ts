/**
 * Public types of the push terminal simulator (ZKTeco ADMS / iclock firmware).
 */
import type { Clock } from '../../util/clock.js';

/** A user enrolled on the simulated terminal. */
export interface PushSimUser {
  pin: string;
  name: string;
  /** 0 user, 14 admin. */
  privilege: number;
  card: string;
}

/** One record of the terminal's attendance log. */
export interface PushSimRecord {
  /** Position in the log (1, 2, ...): the upload stamp of the batch that ends with it. */
  seq: number;
  pin: string;
  /** Wall clock `YYYY-MM-DD HH:mm:ss`. */
  logTime: string;
  status: number;
  verify: number;
  /** Security PUSH: the rtlog event code (0 or 3 for a pass). */
  event?: number;
  /**
   * What the record is: a person's pass (default), another access event that is not a punch
   * (a refusal, a door opening, an unregistered card: `--non-punch-rate`), or a row written
   * before the terminal's clock was set (`--clock-unset`), whose time is impossible.
   */
  kind?: 'pass' | 'other' | 'clock-unset';
}

/** Fault switches; rates are probabilities per upload (0..1). */
export interface PushSimFaults {
  /** Add a malformed line (no tab, bad date, empty PIN, control character) to an upload. */
  malformedRate: number;
  /** Upload a batch again right after the server said OK (the server must not store it twice). */
  duplicateRate: number;
  /** Send a batch and hang up before the answer: the terminal never learns whether it was stored. */
  unansweredRate: number;
  /** Hang up in the middle of a batch's body. */
  dropMidBodyRate: number;
  /** Security PUSH: add a non-punch event (refusal, door opened, unregistered card) after this share of passes. */
  nonPunchRate: number;
  /** Same seed, same sequence of faults and punches. */
  seed: number;
}

/**
 * How the simulated firmware speaks, from what real terminals send (the project's shared notes
 * on ZKTeco push firmware): each switch is one variant seen in the field.
 */
export interface PushSimVariant {
  /** `Stamp=` on every ATTLOG upload, whatever the server's option block said (firmware sends 9999). */
  stamp?: string;
  /** ATTLOG fields per line: 8 (empty work code, status 255), 10 (default, as captured), 11 (plus a sequence number). */
  attlogFields?: 8 | 10 | 11;
  /** Send uploads without a Content-Type. */
  noContentType?: boolean;
  /** `Connection: close` on every request (a new connection each time). */
  connectionClose?: boolean;
  /** Command results one field per line (`ID=3\nReturn=0\nCMD=INFO`). */
  multilineResults?: boolean;
  /** Security PUSH: rows written before the clock was set (`1971--10--29 -23:-27:-54`) at the start of the log. */
  clockUnsetRows?: number;
  /** Security PUSH: send `DeviceType=acc` in the handshake (default true); without it the device registers first. */
  deviceTypeInHandshake?: boolean;
  /**
   * PUSH 2.0.1 firmware: its handshake sends no `pushver` (unless `pushVersion` is given); it reads
   * only `Stamp=` (not `ATTLOGStamp=`), uploads punches only when the bit-string `TransFlag`'s
   * first bit is 1, and takes nothing but a bare `OK` after an upload (`OK:n` is a failure: it
   * sends the batch again).
   */
  dialect?: '2.0.1';
  /**
   * Answers a `DATA QUERY` of users on `/iclock/querydata?...&cmdid=<id>` (tabledata rows) and
   * posts no `devicecmd` result for it, as a BioFace A1 does.
   */
  queryDataAnswers?: boolean;
}

export interface PushTerminalSimOptions {
  /** The gateway's receiver, e.g. http://192.168.1.10:8081. */
  server: string;
  /** Send from this local address (e.g. 127.0.0.2: another device on the LAN using the serial). */
  localAddress?: string;
  serial: string;
  /** Users to enroll: a list, or a count of generated users (default 10). */
  users?: readonly PushSimUser[] | number;
  /** Records in the log at start (default 0): 7 s apart, ending a minute before the start. */
  punches?: number;
  /**
   * Times of new records: 'clock' = the terminal clock now (in `timezone`); 'sequence' = one
   * second apart from `sequenceStart` (default 30 days ago), so that thousands are all distinct.
   */
  timeMode?: 'clock' | 'sequence';
  sequenceStart?: string;
  /** The terminal clock's zone (default the process zone). */
  timezone?: string;
  /** The terminal's clock minus the box's (seconds), e.g. 7200: a clock 2 h ahead. */
  clockOffsetSeconds?: number;
  /** Records per upload at most (default 100). */
  batchSize?: number;
  /** Poll interval instead of the server's Delay (tests: a short one). */
  delayMs?: number;
  /** Wait after a failed request instead of the server's ErrorDelay. */
  errorDelayMs?: number;
  /** Per request (default 10 s). */
  requestTimeoutMs?: number;
  /** `pushver=` (default 2.4.1; 3.1.2 for Security PUSH). */
  pushVersion?: string;
  /** The attendance protocol (ATTLOG, default) or ZKTeco's Security PUSH (registry, push, rtlog, rtstate, tabledata). */
  protocol?: 'attendance' | 'security';
  variant?: PushSimVariant;
  firmware?: string;
  faults?: Partial<PushSimFaults>;
  clock?: Clock;
  /** One line per notable event (uploads, commands, failures). */
  log?: (line: string) => void;
}

/** A command the simulator received and what it answered. */
export interface PushSimCommand {
  id: string;
  command: string;
  returnCode: number;
}

export interface PushSimStats {
  handshakes: number;
  /** ATTLOG uploads answered OK. */
  okUploads: number;
  /** Requests that failed (refused, error answer, timeout, connection trouble). */
  failedRequests: number;
  /** Records sent again after the server had said OK for them (must stay 0). */
  resentAfterOk: number;
  /** Records sent again on purpose (duplicate fault, backfill query). */
  intentionalResends: number;
  malformedSent: number;
  /** The last refusal or error, as the server answered it. */
  lastError: string | null;
  /** The ATTLOGStamp of the last handshake. */
  serverStamp: string | null;
  /** The `TimeZone=` of the last option block (the zone the terminal's firmware now assumes). */
  timeZone: string | null;
  /** TCP connections opened (one is kept alive between requests while the server allows). */
  connections: number;
  /** Security PUSH: registrations made (POST /iclock/registry) and handshakes answered `registry=ok`. */
  registrations: number;
  registeredHandshakes: number;
  /** Security PUSH: the last `tabledata` answer (`user=<n>`) and door-state uploads answered OK. */
  lastTableAnswer: string | null;
  stateUploads: number;
}

export interface PushTerminalSim {
  readonly serial: string;
  /** Adds a record now (and uploads it at once in real-time mode). */
  punch(pin?: string): PushSimRecord;
  /** Adds `n` records. */
  addPunches(n: number): PushSimRecord[];
  records(): PushSimRecord[];
  /** Records the server answered OK for. */
  acked(): PushSimRecord[];
  /** The records that are a person's pass with a valid time: what must reach the HRMS. */
  passes(): PushSimRecord[];
  /** Records not yet answered OK (some may be stored all the same: an answer lost on the way). */
  pending(): number;
  /** Records the terminal still means to upload: after its upload position (the server's stamp, or its last OK). */
  backlog(): number;
  users(): PushSimUser[];
  commands(): PushSimCommand[];
  stats(): PushSimStats;
  setFaults(f: Partial<PushSimFaults>): void;
  startPunching(everyMs: number): void;
  stopPunching(): void;
  stop(): Promise<void>;
}
