/** One access-control event as the simulated device records it (an AcsEvent InfoList row). */
export interface SimEvent {
  serialNo: number;
  major: number;
  minor: number;
  /** The device's time with its offset: `2026-11-02T07:58:01+01:00`. */
  time: string;
  employeeNoString?: string;
  name?: string;
  cardNo?: string;
  /** checkIn, checkOut, breakOut, breakIn, overtimeIn, overtimeOut, undefined. */
  attendanceStatus?: string;
  currentVerifyMode?: string;
  doorNo?: number;
  /**
   * More fields of the row as real firmware writes them (pictureURL, FaceRect, mask, cardType,
   * userType...): sent in the search and the alert stream, read by nobody.
   */
  extra?: Record<string, unknown>;
}

/**
 * An event to add: the device numbers it and, without a time, stamps it with its clock. A
 * `serialNo` given is kept as it is (a bad event from faulty firmware); numbering goes on below it.
 */
export type NewSimEvent = Omit<SimEvent, 'serialNo' | 'time'> & { time?: string; serialNo?: number };

export interface SimUser {
  employeeNo: string;
  name: string;
  userType: string;
  valid: { enable: boolean; beginTime: string; endTime: string };
  doorRight: string;
  /** May use the device's own menu: an administrator of the device. */
  localUIRight: boolean;
}

/**
 * A fault switch for user writes (UserInfo, UserInfoDetail, CardInfo changes): after `after`
 * writes are done, every later one fails, with an error answer ('error': HTTP 500) or with the
 * connection cut before any answer ('drop': the change is not made either).
 */
export interface WriteFault {
  after: number;
  mode: 'error' | 'drop';
}

export interface SimCard {
  cardNo: string;
  employeeNo: string;
  cardType: string;
}

/**
 * How the firmware treats serial-number filters in the event search: honoured ('yes'),
 * silently ignored ('ignore', the whole log comes back), or refused with HTTP 400 ('refuse').
 */
export type SerialFilterSupport = 'yes' | 'ignore' | 'refuse';

/** How JSON answers are laid out: compact, indented (2 spaces), or with TABs as cJSON writes them. */
export type JsonLayout = 'compact' | 'indent' | 'tabs';

/**
 * An event search the device does not end: 'repeat' answers MORE for ever with its last page
 * again; 'fresh' answers MORE for ever with new door events (numbered on, never stored) and a
 * total that keeps growing; 'huge' pads every page with blanks to hugePageBytes (chunked, no
 * Content-Length).
 */
export type SearchFault = 'repeat' | 'fresh' | 'huge';

/**
 * An alert stream that breaks its bounds: 'endless-part' opens a part without Content-Length and
 * sends bytes for ever; 'huge-part' announces a part of 100 MB.
 */
export type StreamFault = 'endless-part' | 'huge-part';

export interface HikFirmware {
  serialFilters: SerialFilterSupport;
  /** Rows per page at most, whatever maxResults asks (real devices: about 30). */
  pageCap: number;
  /**
   * The largest endSerialNo the search accepts: a larger one is refused with 400 badJsonContent
   * naming endSerialNo (one terminal refused 4,294,967,295 and took 999,999,999). Null: any.
   */
  endSerialMax: number | null;
  /** The endSerialNo maximum its capabilities advertise (not necessarily what it accepts). */
  advertisedEndSerialMax: number;
  /** deviceInfo answered in XML even when JSON was asked. */
  deviceInfoXml: boolean;
  jsonLayout: JsonLayout;
  /** Every alert-stream (re)connect first re-sends the whole stored log (`currentEvent: false`). */
  streamReplay: boolean;
  /** Alert-stream part heads end in a bare LF instead of CRLF. */
  streamBareLf: boolean;
  searchFault: SearchFault | null;
  hugePageBytes: number;
  /** The user search answers MORE for ever with the same page, claiming more rows than it sends. */
  endlessUserSearch: boolean;
  streamFault: StreamFault | null;
  /**
   * false: the event search is refused (`POST /ISAPI/AccessControl/AcsEvent` answers 404 Invalid
   * Operation, notSupport), as on terminals that only post their events (HTTP Listening): a
   * connector's notes on DS-K1T terminals (ERPNEXT-PAKISTAN/Hikvision-Frappe README, "Invalid
   * Operation" / "notSupport"), and the DS-K1T502 of pergolafabio/Hikvision-Addons#177.
   */
  eventSearch: boolean;
}

/** What the simulator logs of each request (the `/__sim/requests` admin call). */
export interface SimRequest {
  at: number;
  method: string;
  path: string;
  status: number;
  /** none: no credentials; ok; refused: wrong password; stale: an expired nonce; locked. */
  auth: 'none' | 'ok' | 'refused' | 'stale' | 'locked' | 'admin';
  /** The AcsEventCond of an event search. */
  cond?: Record<string, unknown>;
}

export interface HikAuthStats {
  /** Wrong passwords that count towards the lock now. */
  consecutiveFailures: number;
  /** Wrong passwords since the start. */
  failures: number;
  /** Times the account was locked. */
  lockouts: number;
  lockedUntil: number | null;
}

export interface HikvisionSimOptions {
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  serialNumber?: string;
  model?: string;
  firmwareVersion?: string;
  /** The device's UTC offset, `+01:00` (its clock and event times carry it). */
  utcOffset?: string;
  /** The device's clock minus the box's, in seconds. */
  clockOffsetSeconds?: number;
  firmware?: Partial<HikFirmware>;
  /** Wrong passwords (within lockoutWindowMs, none right in between) that lock the account (real devices: 5 to 7). */
  lockoutAfter?: number;
  lockoutWindowMs?: number;
  lockoutMs?: number;
  /** How long a Digest nonce stays valid. */
  nonceTtlMs?: number;
  /** Heartbeat interval of the alert stream. */
  heartbeatMs?: number;
  events?: NewSimEvent[];
  users?: Omit<SimUser, 'valid' | 'doorRight' | 'userType' | 'localUIRight'>[] & Partial<SimUser>[];
  writeFault?: WriteFault;
  /** PEM certificate and key: serve HTTPS. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Records each request (default true; the bench turns it off). */
  logRequests?: boolean;
  /** HTTP Listening set already (as if httpHosts had been written): new events are POSTed here. */
  httpHost?: string;
  /** How events are posted: JSON, multipart with a picture (default), or XML. */
  listenFormat?: ListenFormat;
  /** The picture part of a multipart post (default 60 kB). */
  listenPictureBytes?: number;
  /** Wait before posting an event again that was not answered 200 (default 1000 ms). */
  listenRetryMs?: number;
  /** The address posts are sent from (default any). */
  listenFrom?: string;
  now?: () => number;
}

export interface HikvisionSim {
  url: string;
  port: number;
  events(): SimEvent[];
  /** Adds events now (numbered and, without a time, stamped by the device clock); pushed to alert streams. */
  addEvents(events: NewSimEvent[]): SimEvent[];
  /** Clears the log and numbers events from 1 again (a log cleared at the device). */
  clearLog(): void;
  users(): SimUser[];
  cards(): SimCard[];
  requests(): SimRequest[];
  clearRequests(): void;
  auth(): HikAuthStats;
  firmware(): HikFirmware;
  setFirmware(f: Partial<HikFirmware>): void;
  setPassword(password: string): void;
  /** Sets (or clears, with null) the user-write fault; its count starts again. */
  setWriteFault(fault: WriteFault | null): void;
  serialNumber(): string;
  setSerialNumber(serial: string): void;
  /** The device clock, `YYYY-MM-DDTHH:mm:ss+hh:mm`. */
  deviceTime(): string;
  setClockOffsetSeconds(s: number): void;
  /** Open alert-stream connections. */
  streams(): number;
  /** Alert-stream connections opened since the start. */
  streamsOpened(): number;
  /** Ends every alert stream (the device rebooting, a network blip). */
  dropStreams(): void;
  /** The HTTP Listening hosts (httpHosts) set on the device. */
  httpHosts(): HttpHost[];
  /** Sets the one listening host (a URL such as http://127.0.0.1:8081/listen/hikvision/gate), or none. */
  setHttpHost(url: string | null): void;
  setListenFormat(format: ListenFormat): void;
  /** What HTTP Listening posted so far. */
  posts(): PosterStats;
  /** The events the listening host answered 200, in order. */
  postsAcked(): SimEvent[];
  stop(): Promise<void>;
}

/** How the device posts its events by HTTP Listening (http-listening.ts). */
export type ListenFormat = 'json' | 'multipart' | 'xml';

export interface HttpHost {
  id: string;
  url: string;
  protocolType: string;
  parameterFormatType: string;
  addressingFormatType: string;
  ipAddress: string;
  portNo: number;
  httpAuthenticationMethod: string;
}

export interface PosterStats {
  /** Events answered 200. */
  delivered: number;
  /** Posts sent (retries included). */
  attempts: number;
  /** Events waiting to be posted. */
  queued: number;
  /** Status of the last answer (0: none: refused, cut, timed out). */
  lastStatus: number;
}
