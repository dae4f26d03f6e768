import type { LastStop } from './last-stop.js';
import type { CheckpointState } from '../journal/checkpoint-worker.js';
import type { JournalCounts } from '../journal/types.js';
import type { ClockStep } from '../util/clock-steps.js';
import type { FileHandleShortage } from '../util/file-limit.js';
import type { ListenerFact } from '../util/listener-fact.js';

/** A label's tasks that held the daemon's event loop 20 ms or more in a window: how many, the longest, and all together (ms). */
export interface LongTasks {
  label: string;
  count: number;
  maxMs: number;
  totalMs: number;
}

/** What `punchgate status`, the status log and `status --json` show. */
export interface TerminalStatus {
  name: string;
  kind: string;
  online: boolean;
  lastPollAt: string | null;
  /** Last time the terminal answered (a poll or a push that worked); for a ZK terminal, the last poll that finished. */
  lastSuccessAt: string | null;
  skewSeconds: number | null;
  records: number | null;
  users: number | null;
  serial: string;
  offlineSince: string | null;
  lastError: string | null;
  /**
   * What is wrong with the terminal now, in plain words, and what to try (null: nothing). The
   * alerts say it once it lasts; the page and `terminals` show it at once. `waiting`: not a
   * fault but a state to wait out (a push terminal that has not had the time to make its first
   * call): the page shows it plainly, not in the style of an error.
   */
  problem: { cause: string; fix: string; waiting?: true } | null;
  /**
   * The figures (clock, records, users, firmware) are those of `lastSuccessAt`, not of now: the
   * terminal is offline. Shown "as of" that time.
   */
  stale: boolean;
  /**
   * Set while the terminal (or BioTime server) answers but refuses punchgate's login (password):
   * reached, nothing read. Every row says LOGIN REFUSED (login-refused.ts), whatever `online` says.
   */
  loginRefused?: true;
  /** Set when the address answered with another serial than before. */
  previousSerial: string | null;
  /** When it did (ISO): the alert lasts a day from then (SERIAL_CHANGED_ALERT_MS). */
  serialChangedAt?: string | null;
  /** Firmware the terminal reported, if known. */
  firmware?: string | null;
  /** Set while the listener it sends to (`push`: the push terminal receiver) cannot listen: the listener's alert says it. */
  listenerDown?: 'push';
  /** Push terminals (kind adms): what the receiver saw of them. `lastPollAt` is their last contact. */
  push?: PushTerminalStatus;
  /**
   * Its `direction` setting (docs/direction.md), only when it is not the default (`device` with
   * the usual meaning of every state): in words, e.g. `out`, `device (2: none)`.
   */
  direction?: string;
  /**
   * A BioTime server (kind biotime): the terminals behind it as seen in its transactions, each a
   * device of its own in the journal (its serial); names and areas as the server calls them.
   */
  devices?: BehindServerDevice[];
}

/** A terminal behind a BioTime server. */
export interface BehindServerDevice {
  serial: string;
  alias: string;
  area: string;
  /** Its newest punch read (its own wall clock). */
  lastPunch: string;
  /** Its punches read and new to the journal (read again: not counted twice). */
  read: number;
}

/** A push terminal (ZKTeco ADMS) as the receiver saw it. */
export interface PushTerminalStatus {
  lastContactAt: string | null;
  /** The address it last pushed from. */
  address: string | null;
  lastUploadAt: string | null;
  uploads: number;
  /** Punches received in its uploads (new and already known together). */
  received: number;
  /** Lines of its uploads that could not be read (skipped, logged). */
  malformed: number;
  lastMalformed: string | null;
  lastMalformedAt: string | null;
  /** The protocol it speaks: the attendance protocol (ATTLOG) or Security PUSH (rtlog). */
  protocol?: 'attendance' | 'security';
  /** What it said about itself when it registered (Security PUSH): model, firmware, capacities. */
  device?: PushDeviceFacts;
  /** Uploads answered OK that were not turned into punches or known records: kept raw, per table. */
  kept?: PushKeptStatus[];
  /** Records read that are not punches (door events, refusals, door states, photos), per table and code. */
  notPunches?: { table: string; code: string; count: number }[];
  /** Trust on first use: the address its serial pushes from. */
  trustedAddress?: string | null;
  /** Another address seen with its serial (its requests changed nothing): the last one, how often, when. */
  /**
   * Other devices seen sending with its serial since it was last trusted: the first addresses
   * (`address` is the first), whether there were more, the requests in all.
   */
  otherAddress?: { address: string; addresses: string[]; more: boolean; count: number; lastAt: string | null } | null;
  /** Its UTC offset changed since it last read its options (push-zone.ts); absent: it was told today's. */
  zone?: PushZoneStatus | null;
}

/** A push terminal told another UTC offset than today's, and the CHECK queued for it to read its options again. */
export interface PushZoneStatus {
  /** Minutes east of UTC told at its last option fetch, and since when it has been told that offset. */
  told: number;
  toldAt: string;
  /** Minutes east of UTC of its zone now. */
  now: number;
  /** When CHECK was queued for the new offset (null: not yet: it has not polled since). */
  askedAt: string | null;
  /** That command's state, and the terminal's answer (`Return=`) and when. */
  check: 'queued' | 'sent' | 'done' | 'failed' | null;
  returnCode: number | null;
  doneAt: string | null;
}

/** What a Security PUSH terminal said about itself at `/iclock/registry`. */
export interface PushDeviceFacts {
  model: string | null;
  firmware: string | null;
  pushVersion: string | null;
  registeredAt: string | null;
  /** MaxUserCount, MaxAttLogCount, MaxFingerCount, LockCount...: as it sent them. */
  capacities: Record<string, number>;
}

/** Kept uploads of one terminal and table. */
export interface PushKeptStatus {
  table: string;
  /** Uploads kept, and their lines, since the journal began (counts outlive the bound). */
  uploads: number;
  lines: number;
  /** Kept uploads still held in the journal (the others were turned into punches or dropped). */
  held: number;
  /** Dropped, for their age (adms.keptUploads.maxAgeDays) or for room (maxBytes, oldest first)... */
  dropped: number;
  /** ...of them, for their age. */
  droppedOld: number;
  /** Lines turned into punches later (terminals reparse). */
  reparsed: number;
  lastAt: string | null;
  lastReason: string | null;
}

/** A serial the push receiver refused lately: not configured, or outside its terminal's allowFrom. */
export interface PushRefusalStatus {
  serial: string;
  address: string;
  reason: 'unknown' | 'address';
  terminal: string | null;
  firstSeenAt: string;
  lastSeenAt: string;
  count: number;
}

/**
 * Which configuration `punchgate run` runs on, and whether its file loads now. Only the daemon
 * knows (it watches the file); `punchgate status` reads it from the daemon's status file.
 */
export interface ConfigStatus {
  /** The config file (absolute path). */
  file: string;
  /** 'file': as the file loaded at `loadedAt`; 'last-good': the kept copy of it (`lastGood`), loaded from the file at `loadedAt`. */
  runningOn: 'file' | 'last-good';
  loadedAt: string;
  /** Where the last configuration that loaded is kept (beside the journal); null when it could not be written. */
  lastGood: string | null;
  /** The file does not load now: its problems (`file:line: path: message`) and since when (its last change). */
  failure: { problems: string[]; since: string } | null;
  /** Running on the copy: secrets kept out of it that could not be read back, in words. */
  secretsMissing: string[];
  /**
   * Settings of the loaded file a reload could not apply (adms.listen, journal.path...): they take
   * effect at the next restart, the daemon runs with their old values meanwhile. Absent: none.
   */
  restartPending?: string[];
  /** Running on the copy: what the broken file still says that the copy does not override (config/fallback.ts). */
  fallback?: {
    deliveryHeld: string | null;
    notStarted: { name: string; why: string }[];
    onlyInFile: string[];
    terminalsUnread: boolean;
  };
}

/** The disk syncs of the journal's write-ahead log over the last minutes (src/daemon/disk-sync-watch.ts). */
export interface DiskSyncFigures {
  /** How many were made in the window. */
  syncs: number;
  /** The 90th percentile and the slowest, in milliseconds. */
  p90Ms: number;
  maxMs: number;
  /** How far back the window reaches. */
  windowMinutes: number;
}

/** What only the running daemon knows (it is in its memory, not in the journal). */
export interface LiveFacts {
  /** Epoch ms since which another process has held the journal's write lock; null when free. */
  journalBusySince: number | null;
  /** Punches the sources hold in memory meanwhile. */
  heldPunches: number;
  /** How the journal's checkpoints run (Journal.checkpointState); absent where no daemon runs. */
  checkpoints?: CheckpointState;
  /** The configuration it runs on. */
  config?: ConfigStatus;
  /** Delivery's next try (epoch ms; null: not waiting) and whether the HRMS is being probed. */
  delivery?: { nextTryAt: number | null; probing: boolean };
  /** The same for every sink, by name (issue 32). */
  sinks?: Record<
    string,
    {
      nextTryAt: number | null;
      probing: boolean;
      /** A Frappe sink's shift sync (src/daemon/shift-sync-runner.ts), where it has one. */
      shiftSync?: {
        failingSince: number | null;
        lastError: string | null;
        lastSet: Record<string, string>;
        /** Shift types standing at a punch the sink refused: its terminal and log time, since when. */
        held?: Record<string, { terminal: string; logTime: string; since: number }>;
      };
    }
  >;
  /** Steps of the box's wall clock the daemon saw lately (ClockStepWatch.recent). */
  clockSteps?: readonly ClockStep[];
  /** The daemon's event-loop delay since its last status (src/daemon/event-loop-watch.ts). */
  eventLoop?: { p50Ms: number; p99Ms: number; maxMs: number; since: number; longTasks?: LongTasks[] };
  /** How long the journal's disk took to sync lately; absent when it made none. */
  diskSync?: DiskSyncFigures;
  /** The ports it listens on (push terminal receiver, status page) and whether it does (src/status/listeners.ts). */
  listeners?: readonly ListenerFact[];
  /** When it started (epoch ms): a push terminal that has not called within its interval since then is not yet a fault. */
  startedAt?: number;
}

/** A port the daemon listens on, as the status shows it (ListenerFact with times as ISO text). */
export interface ListenerStatus {
  /** `push`: the push terminal receiver (`adms.listen`); `status`: the status page (`status.listen`). */
  listener: 'push' | 'status';
  listen: string;
  up: boolean;
  /** While it cannot listen: since when, the error code (EADDRINUSE, EACCES, ...), its next try. */
  downSince: string | null;
  code: string | null;
  nextTryAt: string | null;
  /** The push receiver held below adms.maxConnections by the file handle limit (an alert). */
  fileHandles?: FileHandleShortage;
}

/** Whether `punchgate run` is alive, as a one-shot `punchgate status` sees it. */
export interface DaemonLiveness {
  /** A process holds the journal's owner lock. */
  running: boolean;
  /** When the status log was last rewritten (epoch ms), null when there is none. */
  statusLogAt: number | null;
  /** The status log is older than three of its intervals (a stopped or stuck daemon). */
  stale: boolean;
  /** Why it last stopped on its own (a fatal exit), when it does not run and a later start has not succeeded. */
  lastStop?: LastStop;
  /** The daemon's live facts from its status file, when it is running and the file is fresh. */
  live?: LiveFacts;
}

/** How a sink's credential is named, for the status words (status/credential.ts). */
export interface SinkCredential {
  sink: string;
  kind: 'hrms' | 'frappe' | 'odoo';
  /** Who answers: "HRMS", "Frappe", "Odoo". */
  who: string;
  /** What it takes: "token", "API key and secret", "API key". */
  what: string;
  /** The config keys of the files it is read from: "hrms.tokenFile", "sinks[odoo].apiKeyFile". */
  place: string;
  /** The seed HRMS of the `hrms:` block: said "HRMS" and "token", as ever. */
  hrmsBlock: boolean;
  /**
   * The files the config names at `place` (absolute paths, never their contents), so that the
   * fix says which file to correct as `punchgate check` does. Absent: none set, or an older report.
   */
  files?: string[];
}

/** One sink's figures and delivery state (issue 32). */
export interface SinkStatus {
  name: string;
  kind: 'hrms' | 'frappe' | 'odoo';
  /** The first sink: its figures are the report's own `punches` and `delivery`. */
  default: boolean;
  punches: JournalCounts;
  delivery: StatusReport['delivery'];
}

export interface StatusReport {
  site: string;
  /** The punchgate version that built this report. */
  version: string;
  generatedAt: string;
  punches: JournalCounts;
  oldestPending: { logTime: string; terminal: string; queuedAt: string } | null;
  delivery: {
    auth: 'ok' | 'failed' | 'unknown';
    authFailedSince: string | null;
    lastAttemptAt: string | null;
    lastSuccessAt: string | null;
    lastResult: string | null;
    lastError: string | null;
    lastErrorAt: string | null;
    /** Since when delivery has failed without a success in between (null: it works). */
    failingSince: string | null;
    /** When punchgate run tries again (null: not waiting, or not known outside the daemon). */
    nextTryAt: string | null;
    /** The HRMS was unreachable: punchgate run asks it every few seconds while it waits. */
    probing: boolean;
    /** How the sink's credential is named (its kind's words, its files' config keys): the status and page say them. */
    credential?: SinkCredential;
  };
  terminals: TerminalStatus[];
  /** Every sink, the default first: only where the config has more than one (the default's are `punches` and `delivery`). */
  sinks?: SinkStatus[];
  /**
   * A Frappe sink's shift sync as the daemon knows it (LiveFacts), by sink: carried in status.json
   * so that `punchgate status` says the same shift-sync alerts as the page. Absent: none runs.
   */
  shiftSync?: Record<string, NonNullable<NonNullable<LiveFacts['sinks']>[string]['shiftSync']>>;
  /**
   * Sinks the journal knows that the config no longer names (taken out, or renamed), still owed
   * punches: those are never sent unless the sink is put back (removed-sinks.ts). Absent: none.
   */
  removedSinks?: { name: string; owed: number }[];
  /**
   * Terminals the config no longer names whose punches are not all delivered yet (they still are,
   * to every sink): removed-terminals.ts. Absent: none.
   */
  removedTerminals?: RemovedTerminalStatus[];
  /**
   * Punches imported apart from every terminal (filed under "import"), once there are any, delivered
   * or not: no terminal's row counts them, and without this the terminals' sums fell short of the
   * queue's delivered (a new-user trial: 76 listed, 81 delivered).
   */
  importedApart?: ImportedApartStatus;
  /** Push terminals refused in the last 24 h (empty without adms.listen). */
  pushRefusals?: PushRefusalStatus[];
  journal: {
    path: string;
    /** Since when another process has kept the daemon from writing (null: free, or not known). */
    busySince: string | null;
    /** Punches the daemon holds in memory until the journal takes them. */
    heldPunches: number;
    /** Free bytes on the journal's file system (null when it cannot be read). */
    freeBytes: number | null;
    /** The oldest claim still in flight, and how many punches are in flight. */
    inflightSince: string | null;
    /** How long its disk took to sync lately (the daemon's figure; absent where it does not run, or made no sync). */
    diskSync?: DiskSyncFigures;
    /**
     * How the daemon's checkpoints run (checkpoint-worker.ts): `failed` is on the main thread since
     * the checkpoint thread failed (`failedAt`, `error`); absent where no daemon runs.
     */
    checkpoints?: {
      thread: CheckpointState['thread'];
      failedAt: string | null;
      error: string | null;
      failures: number;
    };
  };
  /** The configuration punchgate run runs on (null: not known, the daemon does not run or is stuck). */
  config: ConfigStatus | null;
  /** The last backup `punchgate backup` recorded beside the journal (status/backup.ts). */
  backup?: BackupStatus;
  /**
   * Steps of the box's wall clock the daemon saw in the last 24 h (wall clock against its
   * monotonic clock), and how far the box clock is now behind where it ran before them.
   * Absent when there were none.
   */
  boxClock?: { steps: { at: string; seconds: number }[]; behindSeconds: number };
  /**
   * How late the daemon's event loop ran since its previous status (milliseconds: median, 99th
   * percentile, longest), from `since`. A high figure: something held the daemon's one thread
   * (the log names it). Absent where the daemon does not run.
   */
  eventLoop?: {
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    since: string;
    /** The daemon's labelled jobs that held the loop 20 ms or more in the window (count, longest, all together). */
    longTasks?: LongTasks[];
  };
  /** The ports the daemon listens on and whether it does; absent where the daemon does not run. */
  listeners?: ListenerStatus[];
  /** When the running punchgate run started (LiveFacts.startedAt); absent where it does not run. */
  runningSince?: string;
  /** Null inside the daemon (it is running); `punchgate status` fills it in. */
  daemon: { running: boolean; statusLogAt: string | null; stale: boolean; lastStop?: LastStop } | null;
  /** Each alert as one line, `cause: fix` (alertItems, joined). */
  alerts: string[];
  /** The alerts with their cause and fix apart (the page shows the fix below the cause). */
  alertItems: Alert[];
}

/**
 * One alert: what is wrong and what to do (alert-words.ts has every wording and how to write one).
 * - `kind`: a short stable name (tests and machines key on it; the text may change);
 * - `cause`: what is wrong, for a site admin, in plain words;
 * - `fix`: what to try first, as a command to type or a config key to set; never empty.
 */
export interface Alert {
  kind: string;
  cause: string;
  fix: string;
}

/**
 * The last backup `punchgate backup` recorded beside the journal (journal/last-backup.ts), as the
 * status, status --json, the page and `punchgate check` show it. Read from its file each time:
 * the daemon keeps nothing of it.
 */
export interface BackupStatus {
  /** When the last backup was written (null: none recorded on this box). */
  lastAt: string | null;
  /** Where it was written. */
  path: string | null;
  /** The punches it holds. */
  punches: number | null;
  /** Backups older than this many days are an alert (journal.backupAlertAfterDays; 0: never). */
  alertAfterDays: number;
  /** The record is there but cannot be read: why. */
  unreadable?: string;
}

/** A terminal taken out of the config (or renamed) with punches not delivered yet, by state. */
export interface RemovedTerminalStatus {
  name: string;
  pending: number;
  inflight: number;
  rejected: number;
  dead: number;
  quarantined: number;
}

/** The punches imported apart (`punchgate import` without --terminal): all of them, the delivered, and the waiting by state. */
export interface ImportedApartStatus extends RemovedTerminalStatus {
  journaled: number;
  delivered: number;
}
