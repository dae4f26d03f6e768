import type { Punch } from '../punch.js';
import type { PushZone } from './push-zones.js';

/**
 * The journal's narrow interfaces. Sources see only `PunchSink`; delivery sees only
 * `DeliveryQueue`; the CLI and status see `JournalQueries` and the admin operations.
 */

/**
 * A punch's state for a sink. `not_routed` is the default sink's alone: its terminal's `sinks:`
 * leaves that sink out, so the punch is done for it without being sent (never counted as
 * delivered to it: not-routed.ts).
 */
export type PunchState = 'pending' | 'inflight' | 'delivered' | 'rejected' | 'dead' | 'quarantined' | 'not_routed';
export const PUNCH_STATES: readonly PunchState[] = [
  'pending',
  'inflight',
  'delivered',
  'rejected',
  'dead',
  'quarantined',
  'not_routed',
];

export interface IngestOptions {
  /** IANA zone of the source's clock, to judge "in the future" (default the box's zone). */
  timezone?: string;
  /**
   * The punches were recorded just now (a real-time event, a serial line): one dated more than
   * `journal.pastToleranceHours` before the box's clock was recorded while the terminal's clock
   * was behind, and is quarantined (for a source that measures the terminal's clock, only while
   * `clockSkewSeconds` says it is that far behind).
   */
  live?: boolean;
  /**
   * Wall-clock time of the terminal's own clock up to which its log was already read completely
   * (see TerminalRecord.readUpTo). While the terminal's clock is (or just was) behind by more
   * than `journal.pastToleranceHours` (`clockSkewSeconds`), a new punch dated that much before it
   * cannot have been in the log then: it was recorded while the clock was behind, and is
   * quarantined. Not given on a first read: old punches of an old terminal are genuine.
   */
  readUpTo?: string;
  /**
   * The terminal's clock against the box's (seconds, negative = behind), the most behind of this
   * poll's and the previous one's: the evidence for the two rules above. Undefined when the
   * source cannot measure it.
   */
  clockSkewSeconds?: number;
  /**
   * The terminal's clock against the box's as the source read it just now (seconds, positive =
   * ahead): a punch is "in the future" only past the terminal's own clock (future-judge.ts), so a
   * terminal whose clock runs ahead delivers its punches as recorded. Undefined when the source
   * cannot read the clock.
   */
  currentSkewSeconds?: number;
  /**
   * The terminal pushed these just now and its clock cannot be read (push terminals): their
   * offsets (punch time minus receive time) are the evidence of its clock; a steady one is taken
   * as its clock's (see PushedClocks).
   */
  pushed?: boolean;
  /**
   * How far the box's own clock stepped lately (net, ms; negative: back), as the daemon saw it
   * against the monotonic clock (ClockStepWatch): the box's step is not the terminal's fault, so
   * the rules above judge punch times, and the terminal's clock, against the box's clock as it
   * ran before the step as well.
   */
  boxStepMs?: number;
  /**
   * The punches' device is one their terminal was before its current one (a replaced device's USB
   * export): they are filed under it, where its punches already journalled are, and the terminal
   * is not taken to be that device again (its current one stays the one its polls read). Also a
   * USB export filed under "import" by the serial in its name: "import" is no device.
   */
  pastDevice?: boolean;
  /**
   * Source state to write in the same transaction as the punches (e.g. an event cursor): it is
   * durable exactly when they are, so a crash can never leave it ahead of them.
   */
  state?: SourceStateEntry;
  /**
   * Count the new punches per device as the punches name it (IngestResult.newByDevice): a source
   * that reads a server's transactions again (BioTime's id window after a restart) counts per
   * terminal only what was new, not what it read twice.
   */
  countByDevice?: boolean;
}

/** One value a source keeps between runs, per terminal and key. */
export interface SourceStateEntry {
  terminal: string;
  key: string;
  value: string;
}

/** Where sources read (and write, outside an ingest) what they keep between runs. */
export interface SourceStateStore {
  get(terminal: string, key: string): string | undefined;
  set(entry: SourceStateEntry): void;
}

export interface IngestResult {
  /** New punches now waiting for delivery. */
  added: number;
  /** Already in the journal (same device, or terminal where no device is known, biometric code and time). */
  duplicates: number;
  /** New punches held back because their time is implausible. */
  quarantined: number;
  /**
   * Records refused at the journal's door (their code or terminal name breaks the text rule of
   * src/punch.ts): never stored, counted per terminal for the status, logged. Set by the journal
   * when any was refused.
   */
  refused?: number;
  /** Which ones and why (the first 100 of one call), by their index in the punches given. */
  refusals?: IngestRefusal[];
  /**
   * Of the duplicates, punches the journal no longer holds: delivered, then deleted by the
   * retention (retention-marks.ts), and read again from a terminal's old log. Set only when some were.
   */
  forgotten?: number;
  /**
   * Punches quarantined earlier as in the future that this call released to the queue: the push
   * terminal's offset became steady (its clock explains them). Set only when some were.
   */
  released?: number;
  /**
   * With IngestOptions.countByDevice: of the punches given, how many were new to the journal
   * (waiting or quarantined), per device as the punches name it ('' for none).
   */
  newByDevice?: Map<string, number>;
}

/** One record the journal refused. */
export interface IngestRefusal {
  index: number;
  reason: string;
  /** The refused code as printable text (escaped, at most 40 characters shown). */
  code: string;
}

/** Records refused at the journal's door, per terminal (see RefusedRecordStore). */
export interface RefusedRecords {
  terminal: string;
  count: number;
  firstAt: number;
  lastAt: number;
  lastReason: string;
  /** Escaped, cut at 40 characters. */
  lastCode: string;
}

/**
 * What a source writes to. One call = one transaction: all or none are durable on return.
 * A punch is known by its device's serial number (`device`) where the terminal reports one, else
 * by its terminal's name: with its biometric code and time, that is its identity; a punch
 * whose identity is already in the journal is a duplicate.
 *
 * The door every punch passes, whatever its source: a record whose biometric code or terminal
 * name breaks the text rule (codeProblem, textProblem) is refused (IngestResult.refused), and a
 * serial number that breaks it is kept as a bounded stand-in (deviceIdentity).
 */
export interface PunchSink {
  ingest(punches: readonly Punch[], opts?: IngestOptions): IngestResult;
  /**
   * The same, its disk sync made beside the event loop: `synced` resolves once the punches are on
   * the disk (rejects if that sync fails). A source that then tells its terminal anything (clears
   * its log) waits for it. Absent: `ingest` syncs before it returns.
   */
  ingestSyncedLater?(punches: readonly Punch[], opts?: IngestOptions): { result: IngestResult; synced: Promise<void> };
}

/** A punch as delivery sends it. */
export interface OutboundPunch {
  id: number;
  devicelogId: string;
  biometricCode: string;
  logTime: string;
  /** The terminal's name and the device's serial ('' when not known), as journalled. */
  terminal: string;
  device: string;
  /**
   * The state the terminal recorded (src/punch/states.ts), null when none: its direction is the
   * terminal setting's business (src/punch/direction.ts), never the journal's.
   */
  punchState: number | null;
  /** Attempts already charged (HRMS answered about this punch). */
  attempts: number;
  /** State before the claim: 'pending' or 'rejected'. */
  previousState: 'pending' | 'rejected';
}

/** What the HRMS said about one punch (or that it said nothing we can use). */
export type PunchOutcome =
  | { id: number; kind: 'delivered'; message?: string }
  | { id: number; kind: 'duplicate'; message?: string }
  | { id: number; kind: 'rejected'; message: string }
  /** Outcome unknown (short Payload, timeout after sending): back to pending, no attempt charged. */
  | { id: number; kind: 'unknown'; message?: string };

export interface ClaimOptions {
  /** Also take rejected punches whose retry time has not come yet (`flush --all`). */
  ignoreBackoff?: boolean;
  /**
   * Leave out the punches of a code that has an earlier refused punch waiting for its retry: for
   * sinks that pair a person's punches in order (Odoo); see held-behind-refused.ts.
   */
  holdBehindRefused?: boolean;
  /** With holdBehindRefused: refused punches whose message is LIKE one of these hold nothing. */
  holdNothing?: readonly string[];
}

export interface DueCountOptions extends ClaimOptions {
  /** Stop counting here: the answer is min(count, atMost). */
  atMost?: number;
}

/** What delivery works on. */
export interface DeliveryQueue {
  /**
   * Moves up to `limit` due punches (pending, and rejected whose retry time has come)
   * to `inflight`, oldest log time first, and returns them.
   */
  claim(limit: number, opts?: ClaimOptions): OutboundPunch[];
  /** Records the HRMS's answer for each claimed punch; one transaction (kept for later while the journal is busy). */
  settle(outcomes: readonly PunchOutcome[]): void;
  /**
   * Returns claimed punches to their previous state without charging an attempt. Like `settle`,
   * it never fails for a busy journal: the return is kept and written as soon as the journal is
   * free, and while this process lives nobody else takes those punches.
   */
  release(ids: readonly number[]): void;
  /**
   * Runs `fn` in one transaction (one commit, one disk sync): the deliverer settles a batch,
   * writes its delivery state and claims the next batch in it. An error inside `fn` undoes all
   * of it; a busy journal throws before anything is written. Optional: without it each write is
   * its own transaction.
   */
  together?<T>(fn: () => T): T;
  /** Epoch ms of the earliest moment a punch becomes due, or null when nothing waits. */
  nextDueAt(): number | null;
  /** Count of punches deliverable now (at most `atMost` when given: a cheap count of a long queue). */
  dueCount(opts?: DueCountOptions): number;
  /**
   * Punches refused and waiting for their retry (`rejected`), from the counts kept with every
   * write: cheap at any backlog. Zero: nothing is held behind a refused punch (held-behind-refused.ts).
   */
  refusedWaiting?(): number;
  /**
   * A queue that takes in the journal's punches in steps (a second sink, sink-deliveries.ts):
   * takes in one bounded step, true while more wait. The deliverer calls it before a claim,
   * letting the event loop run between steps, so a claim never takes in a long backlog (a sink
   * back after an outage) in one go. Optional: a claim takes in what is left by itself.
   */
  takeInStep?(): boolean;
}

export interface StoredPunch {
  id: number;
  terminal: string;
  device: string;
  biometricCode: string;
  logTime: string;
  verifyType: number | null;
  punchState: number | null;
  devicelogId: string;
  state: PunchState;
  attempts: number;
  /** Epoch ms. */
  nextAttemptAt: number | null;
  lastMessage: string | null;
  duplicate: boolean;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
}

export interface PunchFilter {
  state?: PunchState;
  terminal?: string;
  limit?: number;
  /** Log times from this one on, and up to this one (the terminals' wall clock, `2026-11-22 08:00:00`). */
  since?: string;
  until?: string;
}

/** Punches the HRMS refused (rejected, or given up: dead) with one message, of one code. */
export interface RefusedPunches {
  /** The HRMS's last word on them ('' when it gave none). */
  message: string;
  code: string;
  state: 'rejected' | 'dead';
  count: number;
}

/** The oldest claim in the journal: what the status alerts on when it is far older than a request. */
export interface OldestClaim {
  /** Epoch ms of the claim. */
  claimedAt: number;
  /** Punches in flight in all. */
  punches: number;
  /** Claim holders with punches in flight. */
  holders: number;
}

export interface JournalCounts {
  pending: number;
  inflight: number;
  /** Sent to the sink and taken by it (never a punch it was not meant to get: notRouted). */
  delivered: number;
  rejected: number;
  dead: number;
  quarantined: number;
  /**
   * Punches never meant for this sink: their terminal's `sinks:` leaves it out, so they were not
   * sent to it (the default sink's state `not_routed`; always 0 for the other sinks, which never
   * take such a punch in).
   */
  notRouted: number;
}

/** Counts of no punch at all, to fill in from the kept counts. */
export function noPunchCounts(): JournalCounts {
  return { pending: 0, inflight: 0, delivered: 0, rejected: 0, dead: 0, quarantined: 0, notRouted: 0 };
}

/** Persistent record of what each terminal last reported (read by one-shot commands and status). */
export interface TerminalRecord {
  name: string;
  /** Serial number last seen at this terminal's address, '' if unknown. */
  serial: string;
  /** Previous serial when the device at the address changed; '' otherwise. */
  previousSerial: string;
  serialChangedAt: number | null;
  online: boolean;
  lastPollAt: number | null;
  lastSuccessAt: number | null;
  /** Since when the terminal has been unreachable (epoch ms), null when online. */
  offlineSince: number | null;
  /** What went wrong last, in plain words (null after a poll that worked). */
  lastError: string | null;
  /** What to try about `lastError` (null: none recorded; the status then says what it can). */
  lastErrorFix: string | null;
  skewSeconds: number | null;
  records: number | null;
  users: number | null;
  firmware: string | null;
  /**
   * The terminal's own clock (wall time) up to which its log was read completely, never going
   * back: the earlier of its clock and the box's at the start of the last complete download.
   * Valid for the device `serial`. Null until the first complete download.
   */
  readUpTo: string | null;
}

/** Delivery's state that outlives a process, for `status` and the status log. */
export interface DeliveryRecord {
  auth: 'ok' | 'failed' | 'unknown';
  authFailedSince: number | null;
  lastAttemptAt: number | null;
  lastSuccessAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
  /** Short summary of the last batch: e.g. "200 sent: 198 delivered, 2 rejected". */
  lastResult: string | null;
  /** Since when delivery has failed without a success in between (null: it works, or has not been tried). */
  failingSince: number | null;
}

// ---- Push terminals (ADMS / iclock): what the receiver and the admin commands need ----

/** One upload of a push terminal: whose it is, which table, and the `Stamp=` it came with. */
export interface PushUpload {
  terminal: string;
  /** The serial the terminal sent (the configured one). */
  serial: string;
  /** ATTLOG, OPERLOG, ... as the terminal named it. */
  table: string;
  /** The upload's `Stamp=`; saved only together with the upload's data. Null: none sent. */
  stamp: string | null;
  /** Epoch ms. */
  at: number;
}

/** Lines of an upload that could not be read (reported, counted, never journalled). */
export interface PushMalformed {
  count: number;
  /** The first one, shown in the status: e.g. `line 7: no tab`. */
  first: string | null;
}

/** The punches of one ATTLOG upload, with what is saved along with them. */
export interface PunchUpload {
  upload: PushUpload;
  punches: readonly Punch[];
  /** IANA zone of the terminal's clock (to judge "in the future"). */
  timezone?: string;
  malformed: PushMalformed;
  /** What else the upload carried, written in the same transaction. */
  extra?: PushExtra;
}

/** Which protocol a push terminal speaks: the attendance protocol (ATTLOG) or Security PUSH (rtlog). */
export type PushProtocol = 'attendance' | 'security';

/** A push terminal's registration (Security PUSH `/iclock/registry`) and the protocol it speaks. */
export interface PushRegistration {
  terminal: string;
  serial: string;
  protocol: PushProtocol;
  /** The code punchgate gave it (null: not registered yet). */
  registryCode: string | null;
  sessionId: string | null;
  /** What it said about itself (model, firmware, capacities), secrets left out. */
  facts: Record<string, string>;
  registeredAt: number | null;
  /** Trust on first use: the address this serial pushes from, since when. */
  trustedAddress: string | null;
  trustedAt: number | null;
  /** Another address seen with this serial lately (its requests changed nothing). */
  otherAddress: string | null;
  otherCount: number;
  otherLastAt: number | null;
  updatedAt: number;
}

/**
 * Part of an upload answered OK that punchgate did not turn into punches or known records (an
 * unknown table, lines it could not read, rows of a table it does not read): kept raw, so that
 * a later punchgate can turn them into punches (`terminals reparse`).
 */
export interface KeptUpload {
  /** As the terminal named it (ATTLOG, rtlog, tabledata:userauthorize, ...). */
  table: string;
  /** Why it was kept, e.g. `line 3: bad date`, `unknown table`. */
  reason: string;
  /** The lines kept (LF-separated), as received. */
  body: string;
  lines: number;
  /**
   * The lines were not UTF-8: `body` holds their bytes one character per byte (latin1), so a
   * reparse reads the very bytes the terminal sent (decoded as UTF-8, they were U+FFFD for good).
   * Marked without a column of its own: such a row's `bytes` is the bytes' count, its body's
   * length, where a UTF-8 body's is its UTF-8 length, which differs once a character is not ASCII
   * (kept-bytes.ts).
   */
  latin1?: true;
}

/** Bounds of the kept uploads, all terminals together: the oldest go first, counted. */
export interface KeptBounds {
  maxBytes: number;
  maxAgeMs: number;
}

/** Records read and known but not punches (door events, refusals, door states, photos), counted. */
export interface PushEventCount {
  table: string;
  /** The event code (rtlog), or a kind: `state`, `photo`, `template`, `OPLOG`... */
  code: string;
  count: number;
}

/** What an upload carried beside punches and users. */
export interface PushExtra {
  kept?: readonly KeptUpload[];
  events?: readonly PushEventCount[];
  keptBounds?: KeptBounds;
}

/** A kept upload as stored. */
export interface KeptUploadRecord extends KeptUpload {
  id: number;
  terminal: string;
  serial: string;
  receivedAt: number;
  bytes: number;
}

/** What `terminals reparse` needs of the journal: the kept uploads, and their re-reading. */
export interface KeptStore {
  keptUploads(terminal?: string): KeptUploadRecord[];
  reparseKept(
    kept: KeptUploadRecord,
    punches: readonly Punch[],
    rest: { body: string; lines: number; latin1?: true } | null,
    timezone: string | undefined,
  ): IngestResult;
}

/** Per terminal and table: kept uploads (counts outlive the bound). */
export interface KeptCount {
  terminal: string;
  table: string;
  uploads: number;
  lines: number;
  /** Kept uploads dropped, for their age or for room... */
  dropped: number;
  /** ...of them, for their age (adms.keptUploads.maxAgeDays). */
  droppedOld: number;
  reparsed: number;
  /** Kept uploads still held for this terminal and table. */
  held: number;
  lastAt: number | null;
  lastReason: string | null;
}

/** Per terminal, table and code: records read that are not punches. */
export interface PushEventRecord extends PushEventCount {
  terminal: string;
  lastAt: number;
}

/** A user as a push terminal reports it. Never a password or a biometric template. */
export interface PushUser {
  pin: string;
  name: string;
  card: string;
  privilege: number | null;
}

/** What the receiver keeps per push terminal beside the terminals ledger. */
export interface PushTerminalRecord {
  terminal: string;
  serial: string;
  lastContactAt: number | null;
  address: string | null;
  pushVersion: string | null;
  lastUploadAt: number | null;
  uploads: number;
  /** Punches received in uploads (new, duplicates and quarantined together). */
  received: number;
  malformed: number;
  lastMalformed: string | null;
  lastMalformedAt: number | null;
}

/** A terminal's contact as the receiver saw it; written in batches (one transaction). */
export interface PushContact {
  terminal: string;
  serial: string;
  /** Epoch ms of the last request. */
  lastContactAt: number;
  address: string;
  online: boolean;
  /** Since when it has been silent (epoch ms), null when online. */
  offlineSince: number | null;
  pushVersion?: string;
  firmware?: string;
  /** The terminal's own record and user counts (from INFO). */
  records?: number;
  users?: number;
}

/** A serial refused by the receiver: not configured, or pushing from outside its `allowFrom`. */
/**
 * The serial or address of a refusal row that sums the refusals beyond the rows kept one by one
 * (`*`, never a serial nor an address): `*`/`*` the unknown serials beyond the bound, `SN`/`*`
 * a configured serial's addresses beyond it. So a flood of invented serials or addresses keeps
 * few rows and its counts stay whole.
 */
export const REFUSALS_BEYOND = '*';

/**
 * The serial of a refusal row of requests that named no usable serial (no `SN=`, or one that is
 * not a serial number): kept with the unknown serials, so the admin of such a terminal sees its
 * address where unknown terminals show, not nothing.
 */
export const NO_SERIAL = '';

/**
 * The serial of a refusal row of connections that spoke TLS (HTTPS) to the receiver, which speaks
 * plain HTTP: a terminal whose *HTTPS* switch is on. Nothing it sends can be read, its serial
 * neither; kept with the unknown serials, so its admin is told what to switch off. Never a real
 * serial (a serial has no `~`).
 */
export const SPEAKS_TLS = '~tls';

export interface PushRefusal {
  /** REFUSALS_BEYOND for the sum of the unknown serials beyond the bound. */
  serial: string;
  /** REFUSALS_BEYOND for the sum of the addresses beyond the bound. */
  address: string;
  reason: 'unknown' | 'address';
  /** For 'address': the terminal that has this serial. */
  terminal: string | null;
  firstSeenAt: number;
  lastSeenAt: number;
  /** Refused requests (since the row was made). */
  count: number;
}

export type TerminalCommandState = 'queued' | 'sent' | 'done' | 'failed';

/** A command on a push terminal's queue (`C:<id>:<command>`). */
export interface TerminalCommand {
  id: number;
  terminal: string;
  command: string;
  /** queued: waiting for the terminal's next poll; sent: handed out, no result yet; done / failed: its result. */
  state: TerminalCommandState;
  createdAt: number;
  sentAt: number | null;
  sentCount: number;
  doneAt: number | null;
  /** The terminal's `Return=` (0 ok, negative codes are errors). */
  returnCode: number | null;
  /** What the terminal reported with the result (INFO's values), if anything. */
  result: string | null;
}

/** One `ID=..&Return=..&CMD=..` result of `POST /iclock/devicecmd`. */
export interface TerminalCommandResult {
  id: string;
  returnCode: number;
  cmd: string;
  /** Extra lines that came with it (INFO's key=value lines), already filtered. */
  content?: string;
}

/** What a confirmed command changes in the user records kept for its terminal. */
export type PushUserChange = { upsert: PushUser } | { remove: string };

/**
 * The per-terminal command queue of push terminals, as the CLI (and the roster sync) uses it.
 * A command not yet confirmed is never queued twice.
 */
export interface TerminalCommandQueue {
  /**
   * Queues `command` for `terminal`, unless the same command is already queued or sent without
   * a result: then that one is returned and `created` is false.
   */
  enqueue(terminal: string, command: string): { command: TerminalCommand; created: boolean };
  /** The terminal's commands, newest first. */
  commands(terminal: string, opts?: { limit?: number }): TerminalCommand[];
  /** The terminal's commands without a result yet (queued or sent), oldest first. */
  openCommands(terminal: string): TerminalCommand[];
}

/** How many commands one `getrequest` answer may carry. */
export interface CommandTakeLimits {
  max: number;
  maxBytes: number;
  /** A command sent this long ago without a result is sent again, if `mayResend` allows. */
  resendAfterMs: number;
  mayResend: (command: string) => boolean;
  /** After such a command nothing else is sent in the same answer (REBOOT). */
  isLast: (command: string) => boolean;
  /** The address the commands are handed to: only a result from there settles them. */
  to?: string;
  /**
   * Why a command can never be sent to this terminal (text its character set cannot hold), or
   * null. Such a command is settled `failed` with that as its result, never handed out.
   */
  unsendable?: (command: string) => string | null;
}

/**
 * What the ADMS receiver needs of the journal. Each method is one transaction: when it
 * returns, its effect is durable (the receiver answers OK only after that).
 */
export interface PushJournal {
  /**
   * Journals the punches of ATTLOG uploads (of one or several terminals) and saves each one's
   * stamp, all in one transaction: one disk sync for every upload that arrived together.
   */
  commitPunches(uploads: readonly PunchUpload[]): IngestResult[];
  /**
   * The same transaction committed without a disk sync on the event loop: `synced` resolves once
   * it is on the disk (the WAL synced in the thread pool), rejects when that fails. Optional: a
   * journal without it syncs each commit itself (commitPunches).
   */
  commitPunchesSyncedLater?(uploads: readonly PunchUpload[]): { value: IngestResult[]; synced: Promise<void> };
  /** Saves the users of one OPERLOG/USERINFO upload and its stamp, in one transaction. */
  commitUsers(upload: PushUpload, users: readonly PushUser[], malformed: PushMalformed, extra?: PushExtra): void;
  /** Saves what an upload without punches or users carried (kept lines, event counts) and its stamp. */
  commitRecords(upload: PushUpload, extra: PushExtra): void;
  /**
   * Drops at most `limit` kept uploads older than `maxAgeMs`, counted as dropped; `more`: older
   * ones remain (PushStore.pruneKeptByAge): the age bound held while no upload comes.
   */
  pruneKeptByAge(maxAgeMs: number, now: number, limit: number): { dropped: number; more: boolean };
  /** A push terminal's registration and protocol, for its current serial. */
  registration(terminal: string, serial: string): PushRegistration | undefined;
  /** Writes several registrations (as kept in memory) in one transaction. */
  saveRegistrations(regs: readonly PushRegistration[]): void;
  /** Records (or updates) a registration; fields left out keep their value. */
  saveRegistration(
    reg: Pick<PushRegistration, 'terminal' | 'serial' | 'protocol' | 'updatedAt'> &
      Partial<
        Pick<
          PushRegistration,
          | 'registryCode'
          | 'sessionId'
          | 'facts'
          | 'registeredAt'
          | 'trustedAddress'
          | 'trustedAt'
          | 'otherAddress'
          | 'otherCount'
          | 'otherLastAt'
        >
      >,
  ): PushRegistration;
  /** The stamps saved for a terminal and serial, by table. */
  stamps(terminal: string, serial: string): Record<string, string>;
  /** The receiver's record of each terminal (to carry contact times over a restart). */
  pushTerminals(): PushTerminalRecord[];
  /** Contacts since the last call (terminals ledger and push state), in one transaction. */
  recordContacts(contacts: readonly PushContact[]): void;
  /** Refused pushers since the last call, merged into the kept ones (bounded). */
  recordRefusals(refusals: readonly PushRefusal[]): void;
  /** A terminal fetched its options and was told this UTC offset, in minutes (push-zones.ts). */
  zoneTold(terminal: string, serial: string, minutes: number): void;
  /** The offset a terminal was last told, and the offset a CHECK was queued for since. */
  zone(terminal: string, serial: string): PushZone | undefined;
  /** Queues `CHECK` so the terminal reads its options (its zone) again; records it was asked for `minutes`. */
  askZoneCheck(terminal: string, serial: string, minutes: number): TerminalCommand;
  /** Hands out the next commands of a terminal (marks them sent). */
  /**
   * The commands to hand out now, marked `sent`; with them, in state `failed`, those settled
   * because `limits.unsendable` refused them (to be said once, never sent).
   */
  takeCommands(terminal: string, now: number, limits: CommandTakeLimits): TerminalCommand[];
  /**
   * Records results against the terminal's commands; a confirmed user command updates the
   * kept users (`effect`) in the same transaction. Returns the ids that matched no sent command.
   */
  settleCommands(
    terminal: string,
    serial: string,
    results: readonly TerminalCommandResult[],
    now: number,
    effect?: (command: string) => PushUserChange | undefined,
    /** The address the results came from: a command handed to another address is not settled. */
    from?: string,
  ): { settled: TerminalCommand[]; unknown: string[] };
}
