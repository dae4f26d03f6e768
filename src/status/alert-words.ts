import { localTime } from '../util/local-time.js';
import { clockSpan, wholeHalfHours, wholeHours } from '../util/clock-offset.js';
import { printable } from '../util/terminal-text.js';
import type { LastStop } from './last-stop.js';
import { lastStopFix, lastStopWords } from './last-stop-words.js';
import { MAX_CLOCK_AHEAD_SECONDS } from '../journal/future-judge.js';
import { humanBytes } from '../util/disk.js';
import { NO_SERIAL, REFUSALS_BEYOND, SPEAKS_TLS } from '../journal/types.js';
import { offsetLabel } from '../sources/adms/options.js';
import { credentialFix, refusesWords } from './credential-words.js';
import { lastActivityLabel } from './activity-words.js';
import { speaksNoTls } from '../hrms/no-tls.js';
import { certificateTrouble, certificateWords } from '../hrms/certificate-trouble.js';
import type {
  Alert,
  ConfigStatus,
  DiskSyncFigures,
  ListenerStatus,
  PushZoneStatus,
  SinkCredential,
  TerminalStatus,
} from './types.js';
import { firstFew } from '../util/first-few.js';

export type { Alert } from './types.js';

/** A BioTime server's note as the alerts quote it (src/sources/biotime/notes.ts). */
export interface BioTimeNote {
  cause: string;
  fix: string;
  at: number;
}

/**
 * Every alert of the status, the status page and `/status.json`, in one table: what is wrong and
 * what to do, in the words `punchgate check` uses for the same fault. alerts.ts decides *when*
 * an alert is raised; this file says *what it says*.
 *
 * How to write a new alert (add a function here, call it where the condition is known):
 * - `kind`: a short stable name (tests and machines key on it; the text may change);
 * - `cause`: what is wrong, for a site admin: plain words, what it means for the punches, since
 *   when; no protocol detail (that goes to the log at debug), text from outside quoted as it is
 *   (the status and the page escape it);
 * - `fix`: what to try first, as a command to type or a config key to set; never empty.
 * The status log shows `cause: fix` on one line; the page shows the fix below the cause.
 */
/**
 * When a refused pusher was last heard: "last <time>" while punchgate run runs; read from a
 * stopped daemon's journal, "last seen <time>, before punchgate run stopped" (nothing pushes now).
 */
const lastSeen = (at: number, stopped: boolean): string =>
  stopped ? `last seen ${localTime(at)}, before punchgate run stopped` : `last ${localTime(at)}`;

/** The one-line form: `cause: fix` (status log, `punchgate status`, `alerts` in status.json). */
export const alertLine = (a: Alert): string => `${a.cause}: ${a.fix}`;

const MIN = 60_000;
/**
 * How to set the clock of a terminal punchgate cannot set (a serial clock, a Dahua terminal, a
 * BioTime server's terminals): the fix once named `syncClock: true`, a key their config refuses.
 */
const NO_CLOCK_SETTING = 'on the terminal itself (its menu or keypad): punchgate cannot set this kind of clock';

/** "45 s" below two minutes, else as `span`. */
export function seconds(ms: number): string {
  return ms < 2 * MIN ? `${Math.max(0, Math.round(ms / 1000))} s` : span(ms);
}

/** "3 h", "25 min", "2 d". */
export function span(ms: number): string {
  if (ms >= 48 * 60 * MIN) return `${Math.floor(ms / (24 * 60 * MIN))} d`;
  if (ms >= 60 * MIN) return `${Math.floor(ms / (60 * MIN))} h`;
  return `${Math.max(1, Math.floor(ms / MIN))} min`;
}

/** "1 punch", "14 punches". */
export const punches = (n: number) => `${n} ${n === 1 ? 'punch' : 'punches'}`;

/** The alert of a terminal's note (src/sources/device-notes.ts): its kind `<source>-<topic>`, its words and when. */
const noteAlert =
  (source: string) =>
  (terminal: string, n: { topic: string; cause: string; fix: string; at: number }): Alert => ({
    kind: `${source}-${n.topic}`,
    cause: `terminal ${terminal}: ${n.cause} (last at ${localTime(n.at)})`,
    fix: n.fix,
  });

/** A config file's problems, the first one whole: `file:12: hrms.baseUrl: ... (and 2 more)`. */
function problemsOf(c: ConfigStatus): string {
  const p = c.failure?.problems ?? [];
  return p.length > 0 ? firstFew(p, 1, 'punchgate check --config-only lists them') : 'unknown problem';
}

const CONFIG_FIX = (file: string) =>
  `correct ${file}, check it with punchgate check --config-only, then sudo systemctl reload punchgate`;

/** Tables of user records (attendance OPERLOG and USERINFO, Security PUSH tabledata of the user table). */
const USER_TABLES = /^(OPERLOG|USERINFO|tabledata:user)$/i;

/**
 * Why kept uploads were dropped, after "N dropped": for their age, for room, or both (counted
 * apart, kept-drops.ts). Every drop was said "to stay within adms.keptUploads", and an admin whose
 * uploads had aged out raised the size bound.
 */
function droppedWhy(k: { dropped: number; droppedOld?: number }): string {
  const old = Math.min(k.droppedOld ?? 0, k.dropped);
  const room = k.dropped - old;
  if (old === 0) return ' to stay within adms.keptUploads.maxBytes';
  if (room === 0) return ' for their age (older than adms.keptUploads.maxAgeDays)';
  return `: ${old} older than adms.keptUploads.maxAgeDays, ${room} to stay within adms.keptUploads.maxBytes`;
}

/** The bound to raise to keep the next ones: the one that dropped them. */
function keptBoundToRaise(k: { dropped: number; droppedOld?: number }): string {
  const old = Math.min(k.droppedOld ?? 0, k.dropped);
  if (old === 0) return 'adms.keptUploads.maxBytes';
  return old === k.dropped ? 'adms.keptUploads.maxAgeDays' : 'adms.keptUploads.maxAgeDays and maxBytes';
}

/** Lines of user uploads kept raw: no punch is in them, and reparse does not read them. */
function pushKeptUsers(
  t: { name: string },
  k: { table: string; held: number; lines: number; dropped: number; droppedOld?: number },
  last: string,
): Alert {
  const what = `terminal ${t.name}: ${k.held + k.dropped} ${k.table} upload(s) answered OK held user records punchgate could not read`;
  const noPunch = 'user records carry no punch: no attendance is missing';
  const cause =
    k.held === 0
      ? `${what} (${last}); all ${k.dropped} were dropped${droppedWhy(k)}, none is kept; ${noPunch}`
      : `${what} (${k.lines} ${k.lines === 1 ? 'line' : 'lines'} in all, ${last}): ${k.held} kept raw in the journal` +
        `${k.dropped > 0 ? `, ${k.dropped} more dropped${droppedWhy(k)}` : ''}; ${noPunch}`;
  return {
    kind: 'push-kept',
    cause,
    fix:
      `punchgate terminals users ${t.name} lists the users it did read; if such uploads recur, update the terminal firmware or punchgate ` +
      '(the lines stay kept as evidence for adms.keptUploads.maxAgeDays), and this alert ends a day after the last such upload',
  };
}

export const ALERT = {
  /** `lastLogAt`: when it last wrote its status log (about when it stopped), if it ever did. */
  /** `diskFull`: the journal's disk is almost full, which stops it (exit 74) however often it is started. */
  /** `lastStop`: why it last stopped on its own (its last line, with the fix), until a later start succeeds. */
  /** `configFails`: the config file does not load now (a stop on it is not recorded: lastStopFix). */
  daemonDown: (lastLogAt: number | null = null, diskFull = false, lastStop?: LastStop, configFails = false): Alert => ({
    kind: 'daemon-down',
    cause: `punchgate run is not running (nothing holds the journal lock${lastLogAt === null ? '' : `; its status log was last written at ${localTime(lastLogAt)}, and what follows is as it saw it then`}): no punch is collected or delivered${diskFull ? "; the journal's disk is almost full, which stops it" : ''}${lastStop ? `; ${lastStopWords(lastStop)}` : ''}`,
    fix: lastStop
      ? `${diskFull ? "free space on the journal's disk first (the disk alert below), then " : ''}${lastStopFix(configFails)} (this stays said until a start succeeds)`
      : `${diskFull ? "free space on the journal's disk first (the disk alert below), then " : ''}start it: sudo systemctl start punchgate (journalctl -u punchgate -n 50 says why it stopped)`,
  }),

  daemonStuck: (statusLogAt: number | null): Alert => ({
    kind: 'daemon-stuck',
    cause: `punchgate run has not rewritten the status log ${statusLogAt === null ? 'at all' : `since ${localTime(statusLogAt)}`}: it may be stuck`,
    fix: 'look at journalctl -u punchgate and restart it (sudo systemctl restart punchgate)',
  }),

  /** The config file does not load; the daemon still runs on what it loaded before. */
  configBroken: (c: ConfigStatus): Alert => ({
    kind: 'config-broken',
    cause: `the config file does not load since ${localTime(Date.parse(c.failure!.since))}: ${problemsOf(c)}; punchgate run keeps the config it loaded at ${localTime(Date.parse(c.loadedAt))}, and would start on its last good copy`,
    fix: CONFIG_FIX(c.file),
  }),

  /**
   * A reload loaded the file, but some of its settings take effect only at a restart
   * (daemon/restart-only.ts, the adms receiver's listen): the daemon runs on with their old values.
   * Said in the reload's log line, the status, the page and `punchgate check` alike.
   */
  restartPending: (file: string, keys: readonly string[], loadedAt?: string): Alert => ({
    kind: 'config-restart-pending',
    cause: `${file} was reloaded${loadedAt ? ` at ${localTime(Date.parse(loadedAt))}` : ''}, but ${keys.length === 1 ? `${keys[0]} takes` : `${keys.join(', ')} take`} effect only after a restart: punchgate run still runs with the value${keys.length === 1 ? '' : 's'} it started with`,
    fix: 'sudo systemctl restart punchgate (punches are kept; terminals are polled again at start)',
  }),

  /**
   * The daemon started on the kept copy because the file did not load. `stopped`: punchgate run is
   * not running (`punchgate status` itself read the copy): what a start would do, not what runs.
   */
  configOnCopy: (c: ConfigStatus, stopped = false): Alert => ({
    kind: 'config-last-good',
    cause:
      `${stopped ? 'punchgate run is not running; a start would run' : 'punchgate run runs'} on the last good config (loaded ${localTime(Date.parse(c.loadedAt))}, kept at ${c.lastGood ?? 'unknown'}) ` +
      (c.failure
        ? `because ${c.file} does not load since ${localTime(Date.parse(c.failure.since))}: ${problemsOf(c)}`
        : `although ${c.file} loads again`) +
      (c.secretsMissing.length ? `; without ${c.secretsMissing.join(' and ')}` : '') +
      (c.fallback?.notStarted.length
        ? `; not collected from, as the file says: ${c.fallback.notStarted.map((t) => `${t.name} (${t.why})`).join(', ')}`
        : '') +
      (c.fallback?.onlyInFile.length
        ? `; named only by the broken file, not collected from: ${c.fallback.onlyInFile.join(', ')}`
        : ''),
    fix: stopped
      ? `correct ${c.file}, check it with punchgate check --config-only, then start it: sudo systemctl start punchgate`
      : c.failure
        ? CONFIG_FIX(c.file)
        : 'apply the file: sudo systemctl reload punchgate',
  }),

  /** Running on the last good copy while the broken file names another HRMS (or none that can be read). */
  configHoldsDelivery: (c: ConfigStatus): Alert => ({
    kind: 'config-delivery-held',
    cause: `delivery is HELD, nothing is sent to the HRMS (punches are journalled and wait): ${c.fallback?.deliveryHeld ?? ''}; the last good copy is not trusted with the address`,
    fix: `${CONFIG_FIX(c.file)} (the punches waiting are delivered then)`,
  }),

  /**
   * `terminals`: the config's, by kind. Push terminals' uploads are not held in memory: each is
   * answered "try later" (503) and stays on the terminal, which sends it again. Said so, "0
   * punches held in memory" alone read as if their punches were lost (a trial's finding).
   */
  journalBusy: (
    ms: number,
    held: number,
    path: string,
    terminals: readonly { name: string; kind: string }[] = [],
  ): Alert => {
    const push = terminals.filter((t) => t.kind === 'adms').map((t) => t.name);
    const pushed =
      push.length === 0
        ? ''
        : `; push ${push.length === 1 ? 'terminal' : 'terminals'} ${firstFew(push, 5)} ` +
          `${push.length === 1 ? 'keeps its' : 'keep their'} punches (each upload is answered "try later") and ${push.length === 1 ? 'sends them' : 'send them'} again once it is free`;
    return {
      kind: 'journal-busy',
      cause: `journal busy for ${seconds(ms)} (another process holds it): ${punches(held)} held in memory, written as soon as it is free${pushed}`,
      fix: `if it lasts, find the process (fuser -v ${path}) and end it`,
    };
  },

  /** The journal's disk syncs slowly (src/daemon/disk-sync-watch.ts): p90 and slowest in ms. */
  journalDiskSlow: (d: DiskSyncFigures): Alert => ({
    kind: 'journal-disk-slow',
    cause: `the journal's disk is slow: one sync in ten took ${(d.p90Ms / 1000).toFixed(1)} s or more in the last ${d.windowMinutes} min (${d.syncs} syncs, the slowest ${(d.maxMs / 1000).toFixed(1)} s; a healthy SD card takes under 0.05 s): punches are kept, but push terminals wait that long for each OK`,
    fix: 'a worn SD card or a failing disk does this: look at the kernel log (journalctl -k), and move journal.path to better storage (docs/operate.md)',
  }),

  /**
   * The checkpoint thread failed (checkpoint-worker.ts): nothing is lost, the daemon copies its
   * write-ahead log on its main thread meanwhile (slower answers under load) and tries a new thread
   * after a wait. Said while it lasts, so that a thread that failed for good is not a silent state.
   */
  checkpointsOnMainThread: (since: number | null, error: string | null, failures: number): Alert => ({
    kind: 'journal-checkpoints',
    cause: `the journal's checkpoint thread failed${since !== null ? ` at ${localTime(since)}` : ''}${failures > 1 ? ` (${failures} times in a row)` : ''}${error ? `: ${error}` : ''}; punches are kept, and the daemon copies its write-ahead log on its main thread meanwhile (it answers terminals a little more slowly under load); a new thread is tried after a wait`,
    fix: `a full or failing disk does this: free space on the journal's disk (df -h) or look at the kernel log (journalctl -k); the alert ends by itself once a new thread works`,
  }),

  disk: (free: number, almostFull: boolean): Alert => ({
    kind: 'disk',
    cause: `disk ${almostFull ? 'almost full' : 'nearly full'}: only ${humanBytes(free)} free for the journal`,
    fix: 'free space (apt-get clean, journalctl --vacuum-size=100M) or move journal.path to a larger disk',
  }),

  /** `lastError` is "no usable HRMS token: <what>: <fix>" (TokenUnavailableError says both). */
  noToken: (lastError: string, since: number | null): Alert => {
    const [what, fix] = splitFix(lastError);
    return {
      kind: 'no-token',
      cause: `${what}${since !== null ? ` (since ${localTime(since)})` : ''}: nothing is delivered, punches are kept`,
      fix: fix ?? 'put the token in the file named by hrms.tokenFile (or PUNCHGATE_HRMS_TOKEN)',
    };
  },

  /** `credential`: the default sink's words (an Odoo or Frappe sink has no token file). */
  tokenRefused: (since: number | null, credential?: SinkCredential): Alert => ({
    kind: 'token-refused',
    cause: `${refusesWords(credential)}${since !== null ? ` since ${localTime(since)}` : ''}`,
    fix: credentialFix(credential),
  }),

  /** A sink other than the default refuses its credential, or none can be read (issue 32). */
  /** `credential`: its kind's words and the config keys of its files (status/credential.ts). */
  sinkToken: (d: {
    sink: string;
    credential: SinkCredential;
    since: number | null;
    noToken: boolean;
    lastError: string | null;
  }): Alert =>
    // Frappe took the key but refuses its user the right (HTTP 403 PermissionError): a role to
    // give, not a credential to replace (found by a new-user trial).
    /refused the API user the right/.test(d.lastError ?? '')
      ? {
          kind: 'sink-token',
          cause: `sink ${d.sink}: Frappe takes its API key but refuses its user the right to deliver${d.since !== null ? ` since ${localTime(d.since)}` : ''}: nothing is delivered to it, punches are kept`,
          fix: 'give the API user the HR User role in Frappe (create Employee Checkin, read Employee, write Shift Type); punchgate tries again by itself',
        }
      : {
          kind: 'sink-token',
          cause: d.noToken
            ? `sink ${d.sink}: no usable ${d.credential.what}${d.since !== null ? ` since ${localTime(d.since)}` : ''} (${d.lastError ?? ''}): nothing is delivered to it, punches are kept`
            : `${refusesWords(d.credential)}${d.since !== null ? ` since ${localTime(d.since)}` : ''}: nothing is delivered to it, punches are kept`,
          fix: credentialFix(d.credential),
        },

  /**
   * A sink's sender could not be built (its caFile is missing...): nothing is sent to it until the
   * file or the config is put right. Said at once: no retry mends it by itself.
   */
  cannotStart: (d: {
    sink: string;
    /** The default sink (the report's own delivery row), as delivery-failing is to sink-failing. */
    isDefault: boolean;
    lastError: string;
    since: number | null;
    waiting: number;
  }): Alert => {
    const words = d.lastError.replace(/^cannot start delivery: /, '');
    const [what, fix] = splitFix(words);
    return {
      kind: d.isDefault ? 'delivery-cannot-start' : 'sink-cannot-start',
      cause: `delivery to sink ${d.sink} cannot start${d.since !== null ? ` (since ${localTime(d.since)})` : ''}: ${what}; nothing is sent to it, ${punches(d.waiting)} waiting, kept safely`,
      fix: `${fix ?? `check the sink ${d.sink} in the config`}; then systemctl reload punchgate (or restart punchgate run)`,
    };
  },

  /** A sink other than the default has failed for a while; the other sinks go on (issue 32). */
  sinkFailing: (d: {
    sink: string;
    forMs: number;
    waiting: number;
    reason: string;
    nextTryAt: number | null;
    /** punchgate run is not running: nothing tries again by itself, and `forMs` ran until it stopped. */
    stopped?: boolean;
  }): Alert => ({
    kind: 'sink-failing',
    cause: `delivery to sink ${d.sink} ${d.stopped ? 'was failing' : 'failing'} for ${span(d.forMs)}${d.stopped ? ' when punchgate run stopped' : ''}: ${punches(d.waiting)} waiting for it, kept safely; ${d.reason}`,
    fix:
      `${d.stopped ? 'start punchgate run (see above)' : d.nextTryAt !== null ? `next try at ${localTime(d.nextTryAt)}` : 'punchgate tries again by itself'}; ` +
      `to try now: sudo -u punchgate punchgate flush --sink ${d.sink}`,
  }),

  /** A Frappe sink's shift sync has failed for a while; delivery goes on (issue 32, docs/sinks-frappe.md). */
  shiftSyncFailing: (d: { sink: string; forMs: number; lastError: string | null }): Alert => ({
    kind: 'shift-sync-failing',
    cause: `sink ${d.sink}: setting the Shift Types' last_sync_of_checkin has failed for ${span(d.forMs)}${d.lastError ? ` (${d.lastError})` : ''}: Frappe's Auto Attendance waits; punches are delivered all the same`,
    fix: `give the API user of sink ${d.sink} write access to Shift Type, and check that each shiftType in sinks[${d.sink}].shiftSync is a Shift Type's exact name in Frappe; punchgate tries again by itself`,
  }),

  /**
   * A Frappe sink's shift types stand at a punch Frappe refused (docs/sinks-frappe.md, "Shift
   * sync"): Auto Attendance of the whole shift waits for that one punch.
   */
  shiftSyncHeld: (d: {
    sink: string;
    forMs: number;
    held: readonly { shiftType: string; terminal: string; logTime: string }[];
  }): Alert => {
    const [first] = d.held;
    const types = d.held.map((h) => h.shiftType).join(', ');
    const many = d.held.length > 1;
    return {
      kind: 'shift-sync-held',
      cause:
        `sink ${d.sink}: Shift Type${many ? 's' : ''} ${types} ${many ? 'have' : 'has'} waited ${span(d.forMs)} at ${first!.logTime}, where a punch of ` +
        `${first!.terminal} was refused by Frappe and waits for its retry: Auto Attendance marks nobody of ` +
        `${many ? 'those shifts' : 'that shift'} after that time until the punch is delivered`,
      fix:
        `see why it was refused (punchgate punches --sink ${d.sink} --state rejected --terminal ${first!.terminal}), ` +
        `correct it in Frappe (usually the employee's attendance device ID), then sudo -u punchgate punchgate punches retry --sink ${d.sink}`,
    };
  },

  /** Delivery has failed for a while (the HRMS away, failing, or refusing requests). */
  deliveryFailing: (d: {
    forMs: number;
    waiting: number;
    reason: string;
    nextTryAt: number | null;
    probing: boolean;
    /** punchgate run is not running: nothing tries again by itself, and `forMs` ran until it stopped. */
    stopped?: boolean;
  }): Alert => ({
    kind: 'delivery-failing',
    cause: d.stopped
      ? `delivery was failing for ${span(d.forMs)} when punchgate run stopped: ${punches(d.waiting)} waiting, kept safely; ${d.reason}`
      : `delivery failing for ${span(d.forMs)}: ${punches(d.waiting)} waiting, kept safely; ${d.reason}`,
    fix:
      (d.stopped
        ? 'start punchgate run (see above)'
        : `${d.nextTryAt !== null ? `next try at ${localTime(d.nextTryAt)}` : 'punchgate tries again by itself'}` +
          `${d.probing ? ' (the HRMS is asked every few seconds: delivery resumes within 30 s of its return)' : ''}`) +
      '; to try now: sudo -u punchgate punchgate flush; punchgate check says whether this box reaches the HRMS',
  }),

  inflightStuck: (n: number, ms: number, holders: number): Alert => ({
    kind: 'inflight-stuck',
    cause: `${punches(n)} in flight for ${span(ms)}, far longer than a request can take (${holders === 1 ? 'one process holds them' : `${holders} processes hold them`})`,
    fix: 'they go back to the queue when their process ends; if punchgate run hangs, restart it',
  }),

  /** A terminal whose trouble only the admin can fix (a refused Hikvision password...): at once. */
  terminalNeedsAdmin: (t: TerminalStatus, problem: { cause: string; fix: string }): Alert => ({
    kind: 'terminal-needs-admin',
    cause: `terminal ${problem.cause}`,
    fix: problem.fix,
  }),

  /** `lastPollAt`: given when punchgate run is not running; `forMs` then runs to that poll, and the words say so. */
  terminalUnreachable: (
    t: TerminalStatus,
    forMs: number,
    problem: { cause: string; fix: string },
    lastPollAt: number | null = null,
  ): Alert => {
    // A serial reader only prints: what it reads while nobody listens is gone, unless it keeps a log of its own.
    const meanwhile =
      t.kind === 'serial'
        ? 'what it reads meanwhile is lost, unless the reader keeps a log of its own'
        : 'its punches wait on the terminal';
    return {
      kind: 'terminal-unreachable',
      cause:
        lastPollAt !== null
          ? `terminal ${t.name} was unreachable for ${span(forMs)} at its ${lastActivityLabel(t.kind)}, ${localTime(lastPollAt)} (${problem.cause}); ${t.kind === 'serial' ? 'nobody reads it' : 'nobody polls it'} while punchgate run is stopped: ${meanwhile}`
          : `terminal ${t.name} unreachable for ${span(forMs)} (${problem.cause}): ${meanwhile}`,
      fix: problem.fix,
    };
  },

  /** `until`: now, or when punchgate run stopped (`stopped`: then no terminal can push at all). */
  pushSilent: (t: TerminalStatus, until: number, stopped = false): Alert => {
    const last = t.push?.lastContactAt ? Date.parse(t.push.lastContactAt) : null;
    const from = t.push?.address ? ` from ${t.push.address}` : '';
    const when = stopped ? ' when punchgate run stopped' : '';
    return {
      kind: 'push-silent',
      cause:
        last === null
          ? `terminal ${t.name} ${stopped ? 'had' : 'has'} not pushed yet${when}`
          : `terminal ${t.name} ${stopped ? 'had' : 'has'} not pushed for ${span(until - last)}${when} (last contact ${localTime(last)}${from}): its punches wait on the terminal`,
      fix: "check its power and network, and that its Cloud Server Setting names this box's address and adms.listen port",
    };
  },

  /** A serial reader sends bytes that make no card, key or line (its framing is not the one set). */
  serialUnframed: (problem: { cause: string; fix: string }): Alert => ({
    kind: 'serial-unframed',
    cause: `terminal ${problem.cause}`,
    fix: problem.fix,
  }),

  pollsDoNotFinish: (
    t: TerminalStatus,
    lastComplete: number | null,
    problem: { cause: string; fix: string },
  ): Alert => ({
    kind: 'polls-do-not-finish',
    cause: `terminal ${t.name}: polls reach it but do not finish (last complete poll: ${lastComplete === null ? 'none yet' : localTime(lastComplete)}): ${problem.cause}`,
    fix: problem.fix,
  }),

  serialChanged: (t: TerminalStatus): Alert => ({
    kind: 'serial-changed',
    cause: `terminal ${t.name} now answers with serial ${t.serial} instead of ${t.previousSerial}${t.serialChangedAt ? ` since ${localTime(Date.parse(t.serialChangedAt))}` : ''}: device swapped or address changed (its punches are kept apart)`,
    fix: `if the device was replaced on purpose, nothing is lost, and this alert ends a day after the swap; otherwise check its host in the config (two terminals may have swapped addresses)`,
  }),

  /**
   * A terminal's clock off the box's: read by its source (ZK, Hikvision), or, for a push terminal,
   * the steady offset of its punches. Its punches are judged against its own clock and delivered
   * with the times it recorded (journal/future-judge.ts): the alert says so, and why it may be off.
   */
  clockSkew: (t: TerminalStatus, syncClock: boolean | undefined): Alert => {
    const s = Math.round(t.skewSeconds ?? 0);
    const hours = wholeHours(s);
    const zone = 'its time zone or daylight saving time is set wrong (on the terminal, or its timezone in the config)';
    const likely =
      hours !== null
        ? `${Math.abs(hours)} whole ${Math.abs(hours) === 1 ? 'hour' : 'hours'}: ${zone}`
        : wholeHalfHours(s) !== null
          ? `whole half hours: ${zone}`
          : 'it drifted or was set by hand';
    const seen = t.push ? 'its punches arrive dated' : 'its clock is';
    const zoneFix = `if it shows the right time for another zone, set timezone for ${t.name} in the config to the zone it runs in`;
    // Off by whole (half) hours, the config's zone may be the wrong one: syncClock sets the
    // terminal to that zone's time, so it is looked at first (a trial's terminal showed the right
    // time, its zone mistyped: syncClock, the first advice, would have put every punch hours off).
    const setIt = `set syncClock: true for ${t.name} so that punchgate sets its clock at each poll, or set it by hand`;
    const zoneFirst =
      likely !== 'it drifted or was set by hand'
        ? `look at the terminal's own display first: if it shows the right local time, the config's zone is wrong: set timezone for ${t.name} in the config to the zone it runs in (syncClock: true would set the terminal to the wrong zone's time); if its time is wrong, ${setIt}`
        : `${setIt}; ${zoneFix}`;
    return {
      kind: 'clock-skew',
      cause: `terminal ${t.name}: ${seen} ${clockSpan(s)} ${s > 0 ? 'ahead of' : 'behind'} the box (${s > 0 ? '+' : ''}${s} s); likely ${likely}. Its punches are delivered with the times it recorded${s > 0 ? ' (judged against its own clock, not held as in the future)' : ''}`,
      fix: t.push
        ? `set the terminal's date, time and time zone (its menu: System > Date/Time); ${zoneFix}`
        : syncClock
          ? "punchgate sets it at each poll (syncClock is on); if it keeps drifting, check the terminal's clock battery"
          : zoneFirst,
    };
  },

  /** Punches quarantined as later than their terminal's clock could be: the offset seen, what lets them through. */
  quarantinedFuture: (q: {
    terminal: string;
    count: number;
    from: string;
    to: string;
    offsetSeconds: number;
    push: boolean;
    /** As for quarantinedBehind: whether `syncClock` is a key of this terminal's kind. */
    syncClock?: boolean;
  }): Alert => {
    const dated = `terminal ${q.terminal}: ${punches(q.count)} quarantined as in the future, dated ${q.from.slice(0, 16)} to ${q.to.slice(0, 16)}: the newest ${q.offsetSeconds >= 0 ? '+' : ''}${q.offsetSeconds} s (${clockSpan(q.offsetSeconds)}) after it arrived (punch time minus receive time)`;
    // Beyond a day and 3 hours no zone or DST explains it, no clock is learnt from it, and no
    // tolerance should be widened for it: the clock is wrong (or the upload is not genuine).
    if (Math.abs(q.offsetSeconds) > MAX_CLOCK_AHEAD_SECONDS)
      return {
        kind: 'quarantined-future',
        cause: `${dated}: further than any time zone could explain, so they stay quarantined`,
        fix: `set the terminal's clock${q.syncClock ? ' (or syncClock: true)' : ''}; check these punches (punchgate punches --state quarantined --terminal ${q.terminal}): punchgate punches release --terminal ${q.terminal} sends them with these times, only if they are right`,
      };
    return {
      kind: 'quarantined-future',
      cause: `${dated}${q.push ? '; several more at the same offset are taken as its clock and delivered' : ''}`,
      fix: `set the terminal's clock${q.syncClock ? ' (or syncClock: true)' : ''}; if only its zone differs, set timezone for ${q.terminal} to the zone it runs in; journal.futureToleranceMinutes: ${Math.ceil(Math.abs(q.offsetSeconds) / 60) + 10} lets such punches through; punchgate punches release --terminal ${q.terminal} sends these with their times`,
    };
  },

  sameSerial: (serial: string, names: readonly string[]): Alert => ({
    kind: 'same-serial',
    cause: `terminals ${names.join(' and ')} answer with the same serial ${serial}: one device listed twice? Its punches are stored once (known by its serial)`,
    fix: 'remove the extra entry from the config',
  }),

  /**
   * Punches of a terminal whose clock was reset or set back. The alert stays after the clock is set
   * right, so its fix gives every step: the clock first (else more are held), then the held ones,
   * released with the wrong dates they carry or left.
   */
  quarantinedBehind: (q: {
    terminal: string;
    count: number;
    from: string;
    to: string;
    push: boolean;
    /** The terminal's kind has `syncClock` (ZK, Hikvision): else the fix must not name a key it refuses. */
    syncClock?: boolean;
  }): Alert => ({
    kind: 'quarantined-behind',
    cause: `terminal ${q.terminal}: ${punches(q.count)} quarantined, dated ${q.from.slice(0, 16)} to ${q.to.slice(0, 16)}: recorded while its clock was behind`,
    fix: `set the terminal's clock right if it is not yet (${q.push ? 'its menu: System > Date/Time; its next punches go in at once' : q.syncClock ? `syncClock: true for ${q.terminal} sets it at each poll` : NO_CLOCK_SETTING}); then check them (punchgate punches --state quarantined --terminal ${q.terminal}): punchgate punches release --terminal ${q.terminal} sends them with the dates it recorded (correct them in the HRMS), or leave them quarantined`,
  }),

  /** Punches whose time does not exist (`2026-02-30`, `24:00:00`): kept, never sent. */
  quarantinedNoTime: (q: { terminal: string; count: number; from: string }): Alert => ({
    kind: 'quarantined-no-time',
    cause: `terminal ${q.terminal}: ${punches(q.count)} quarantined with a time that does not exist (such as "${printable(q.from, 32)}"): no HRMS can take them, so they are kept in the journal and never sent`,
    fix: `check the terminal's clock and firmware; punchgate punches --state quarantined --terminal ${q.terminal} lists them (the person and the moment may be read there and entered by hand in the HRMS)`,
  }),

  quarantined: (n: number): Alert => ({
    kind: 'quarantined',
    cause: `${punches(n)} quarantined (implausible time)`,
    fix: 'check the terminal clocks, then punchgate punches release',
  }),

  /** The box's own clock stepped (its wall clock against its monotonic clock). */
  clockStep: (described: string, back: boolean, stepsIn24h: number): Alert => ({
    kind: 'box-clock-step',
    cause: `${described} (its wall clock against its monotonic clock${back ? '' : '; or the box was asleep'})${stepsIn24h > 5 ? ` — one of ${stepsIn24h} steps in the last 24 h` : ''}: polls, retries and status writes kept their pace and cron schedules were re-armed`,
    fix: 'nothing to do for punchgate; find what set the box clock (timedatectl status; NTP: timedatectl set-ntp true)',
  }),

  /**
   * Every terminal whose clock punchgate knows is off the box by the same amount: one box clock
   * off explains them all, and syncClock (the fix a single terminal's alert gives) would set each
   * of them to the box's wrong time. Found by a trial with the box an hour ahead and its two
   * terminals right: each was blamed, with "set syncClock: true".
   */
  boxClockOff: (names: readonly string[], skewSeconds: number): Alert => {
    const s = Math.round(skewSeconds);
    // Whole (half) hours are also what one wrong timezone in the config gives every terminal that
    // shares it (a trial copied the manual's Europe/Berlin onto a site on UTC): setting their
    // clocks, the advice for a drift, would put right clocks hours wrong.
    const lastly =
      wholeHalfHours(s) !== null
        ? "If the box's clock is right, look at a terminal's own display: if it shows the right local time, the timezone these terminals have in the config is not the zone they run in: set it there (punchgate check names each); if their time is wrong, set their clocks"
        : "If the box's clock is right, the terminals are all off: set their clocks";
    return {
      kind: 'box-clock-off',
      cause: `the box's clock is likely ${clockSpan(-s)} ${s < 0 ? 'ahead' : 'behind'}: every terminal whose clock punchgate knows (${names.join(', ')}) is ${clockSpan(s)} ${s > 0 ? 'ahead of' : 'behind'} it by the same amount (${s > 0 ? '+' : ''}${s} s). Punches are delivered with the times the terminals recorded`,
      fix: `check the box's clock first: timedatectl status (its time, its time zone, "System clock synchronized: yes"); sudo timedatectl set-ntp true, or set the zone with sudo timedatectl set-timezone. Do not set syncClock on the terminals before: it would set them to the box's wrong time. ${lastly}`,
    };
  },

  /** After a step back: terminal times up to that far ahead are taken as right. */
  boxClockBehind: (size: string): Alert => ({
    kind: 'box-clock-behind',
    cause: `the box clock is now ${size} behind where it ran before its step: terminal times up to that far ahead of the box are taken as right (journalled, no clock alert for the terminals)`,
    fix: 'set the box clock right (timedatectl status; NTP: timedatectl set-ntp true) and find what stepped it',
  }),

  /** A terminal reported a serial number that breaks the text rule: its punches are kept under a stand-in. */
  standInSerial: (t: TerminalStatus): Alert => ({
    kind: 'serial-stand-in',
    cause: `terminal ${t.name} reports a serial number that is not one (too long, or with control or invisible characters): its punches are kept apart under ${t.serial}`,
    fix: "check the terminal's firmware and that no other device answers at its address",
  }),

  /** Records the journal refused at its door (a code against the text rule). */
  refusedRecords: (x: {
    terminal: string;
    count: number;
    firstAt: number;
    lastAt: number;
    lastReason: string;
    lastCode: string;
  }): Alert => ({
    kind: 'records-refused',
    cause: `terminal ${x.terminal}: ${x.count === 1 ? '1 record' : `${x.count} records`} refused since ${localTime(x.firstAt)}, not journalled (last ${localTime(x.lastAt)}: ${x.lastReason}, code "${x.lastCode}"): a code must be 1 to 64 letters, digits or symbols without blanks or control characters`,
    fix: "correct that user's code on the terminal (punchgate punches shows what was journalled)",
  }),

  /**
   * Punches of badge cards not in a terminal's code map (codes `card:<number>`), delivered or not:
   * an HRMS that takes any code takes them, and the alert once went with their delivery.
   * `recent`: those journalled in the last `days` days; `waiting`: those not delivered (any age),
   * `waiting.mapped` of them of cards the code map holds now (still under `card:<number>` until a
   * retry remaps them). A card the code map holds now is in neither `recent` nor `waiting.count`.
   */
  unknownCards: (u: {
    terminal: string;
    days: number;
    recent?: { punches: number; cards: number; delivered: number; newestCode: string; newestLogTime: string };
    waiting?: { count: number; codes: readonly string[]; mapped?: number };
    /** The code map file of a serial terminal; none: a terminal that sends the card of a user with no number. */
    codeMap?: string;
  }): Alert => {
    const r = u.recent;
    const waiting = u.waiting?.count ?? 0;
    const mapped = u.waiting?.mapped ?? 0;
    const delivered = r?.delivered ?? 0;
    const unknown = r !== undefined || waiting > 0;
    const mappedWords = `${punches(mapped)} of cards now in the code map ${mapped === 1 ? 'waits' : 'wait'} under card:<number>`;
    const head = r
      ? `${punches(r.punches)} from ${r.cards === 1 ? '1 card' : `${r.cards} cards`} not in the code map in the last ${u.days} days (newest ${r.newestCode} at ${r.newestLogTime.slice(0, 16)})`
      : waiting > 0
        ? `${punches(waiting)} from cards not in the code map (${(u.waiting?.codes ?? []).join(', ')})`
        : mappedWords;
    const parts = [
      ...(delivered > 0
        ? [
            `${delivered === 1 ? '1 was' : `${delivered} were`} delivered: the HRMS holds ${delivered === 1 ? 'it' : 'them'} under card:<number>, not under an employee's code`,
          ]
        : []),
      ...(waiting > 0 ? [`${waiting === 1 ? '1 waits' : `${waiting} wait`} in the journal`] : []),
      ...(mapped > 0 && unknown ? [mappedWords] : []),
    ];
    const add = u.codeMap
      ? `add the cards to the code map file ${u.codeMap} (card,biometriccode) and reload`
      : 'give the cards a user with an employee number on the terminal';
    return {
      kind: 'unknown-cards',
      cause: `terminal ${u.terminal}: ${head}${parts.length ? `: ${parts.join('; ')}` : ''}`,
      fix: [
        ...(unknown ? [add] : []),
        // Only a code map gives a journalled punch another code (remap-cards.ts): elsewhere it keeps card:<number>.
        ...(waiting > 0
          ? [
              u.codeMap
                ? 'then punchgate punches retry sends the waiting ones under the mapped codes'
                : 'the waiting ones keep card:<number> (the HRMS takes them only under that code)',
            ]
          : []),
        ...(mapped > 0
          ? [
              `punchgate punches retry --terminal ${u.terminal} sends the waiting ones of cards now in the code map under their mapped codes`,
            ]
          : []),
        ...(delivered > 0
          ? [
              'punchgate never sends a delivered punch again (the HRMS would then hold both): correct the delivered ones in the HRMS (punchgate punches --code card:<number> lists them)',
            ]
          : []),
      ].join('; '),
    };
  },

  /** `stopped`: punchgate run is not running (the status read from its journal): said in the past, with when. */
  /**
   * `near`: a push terminal of the config whose serial is nearly this one: most likely this very
   * device with its serial mistyped (a new-user trial's terminal stayed "not called yet" beside
   * this alert, which said only to add another terminal).
   */
  pushUnknownSerial: (
    r: { serial: string; address: string; lastSeenAt: string },
    stopped = false,
    near?: { name: string; serial: string },
  ): Alert => ({
    kind: 'push-unknown',
    cause: stopped
      ? `terminal SN=${r.serial} was pushing but is not configured (from ${r.address}, last seen ${localTime(Date.parse(r.lastSeenAt))}, before punchgate run stopped)`
      : `terminal SN=${r.serial} is pushing but is not configured (from ${r.address}, last ${localTime(Date.parse(r.lastSeenAt))})`,
    fix: near
      ? `if it is terminal ${near.name}, configured with the serial ${near.serial} (nearly the same: a typo?), correct that serial to ${r.serial} (System Info on the terminal shows it), then reload; otherwise add it to terminals with kind: adms and serial: ${r.serial}, then reload`
      : `add it to terminals with kind: adms and serial: ${r.serial}, then reload`,
  }),

  /** Requests that named no usable serial (no SN=, or not a serial number): answered 400. */
  pushNoSerial: (r: { address: string; count: number; lastSeenAt: string }, stopped = false): Alert => ({
    kind: 'push-no-serial',
    cause: `a device ${stopped ? 'was' : 'is'} pushing without a serial number (SN=) from ${r.address} (${r.count} requests answered 400, last${stopped ? ' seen' : ''} ${localTime(Date.parse(r.lastSeenAt))}${stopped ? ', before punchgate run stopped' : ''}): its punches stay on it`,
    fix: "if it is a terminal, check that nothing between it and this box (a proxy) drops the query string, and that its firmware sends SN= (update it); if it is not a terminal, keep it off the receiver's port",
  }),

  /** A device speaking TLS (HTTPS) to the receiver, which speaks plain HTTP: a terminal with HTTPS on. */
  pushSpeaksTls: (r: { address: string; count: number; lastSeenAt: string }, stopped = false): Alert => ({
    kind: 'push-https',
    cause: `a device ${stopped ? 'was' : 'is'} connecting with HTTPS (TLS) from ${r.address} (${r.count} ${r.count === 1 ? 'connection' : 'connections'} answered 400, last${stopped ? ' seen' : ''} ${localTime(Date.parse(r.lastSeenAt))}${stopped ? ', before punchgate run stopped' : ''}): the push receiver speaks plain HTTP, so nothing it sends can be read and its punches stay on it`,
    fix: "if it is a terminal, turn HTTPS off in its Cloud Server Setting (ADMS) menu, its Server Port the port of adms.listen (a Hikvision terminal posting by HTTP Listening: set its listening host's protocol to HTTP); if it is not a terminal, keep it off the receiver's port",
  }),

  pushOutsideAllowFrom: (
    r: {
      serial: string;
      address: string;
      terminal: string | null;
      lastSeenAt: string;
    },
    stopped = false,
  ): Alert => ({
    kind: 'push-address',
    cause: `terminal SN=${r.serial} (${r.terminal}) ${stopped ? 'was' : 'is'} pushing from ${r.address}, outside its allowFrom (last${stopped ? ' seen' : ''} ${localTime(Date.parse(r.lastSeenAt))}${stopped ? ', before punchgate run stopped' : ''}): refused`,
    fix: 'add the address to allowFrom if it is right',
  }),

  /** One serial pushing from several addresses outside its allowFrom: one summary (spoofs from 200 addresses are one alert). */
  pushOutsideAllowFromMany: (
    rows: readonly { serial: string; address: string; terminal: string | null; lastSeenAt: string; count: number }[],
    stopped = false,
  ): Alert => {
    const r = rows[0]!;
    const requests = rows.reduce((n, x) => n + x.count, 0);
    const last = Math.max(...rows.map((x) => Date.parse(x.lastSeenAt)));
    // Addresses beyond the kept bound are one row (REFUSALS_BEYOND): counted in the requests, not by name.
    const named = rows.filter((x) => x.address !== REFUSALS_BEYOND);
    const addresses = `${named.length < rows.length ? 'more than ' : ''}${named.length}`;
    const shown = named.slice(0, 3).map((x) => x.address);
    return {
      kind: 'push-address',
      cause: `terminal SN=${r.serial} (${r.terminal}) ${stopped ? 'was' : 'is'} pushing from ${addresses} addresses outside its allowFrom (${requests} requests refused, e.g. ${shown.join(', ')}; ${lastSeen(last, stopped)}): another device may be using its serial`,
      fix: 'if one of them is the terminal, add that address to allowFrom; else find the device sending with its serial',
    };
  },

  /** Many unknown serials: one summary (a device inventing serials cannot flood the alerts). */
  pushUnknownSerials: (
    unknown: readonly { serial: string; address: string; count: number; lastSeenAt: string }[],
    stopped = false,
  ): Alert => {
    // Serials beyond the kept bound are one row (REFUSALS_BEYOND): counted in the requests, not by name.
    const named = unknown.filter((r) => r.serial !== REFUSALS_BEYOND);
    const beyond = named.length < unknown.length;
    // Rows are (serial, address) pairs: one serial pushing from two addresses is one serial.
    const serials = [...new Set(named.map((r) => r.serial))];
    const addresses = [...new Set(named.map((r) => r.address))];
    const requests = unknown.reduce((n, r) => n + r.count, 0);
    const last = Math.max(...unknown.map((r) => Date.parse(r.lastSeenAt)));
    // Beyond the kept bound, more addresses than those named pushed too.
    const from = `${firstFew(addresses, 5)}${beyond && addresses.length <= 5 ? ' and other addresses' : ''}`;
    const examples = serials
      .slice(0, 3)
      .map((s) => (s === NO_SERIAL ? 'no SN=' : s === SPEAKS_TLS ? 'HTTPS' : `SN=${s}`))
      .join(', ');
    return {
      kind: 'push-unknown-many',
      cause: `${beyond ? 'more than ' : ''}${serials.length} unknown serials ${stopped ? 'were' : 'are'} pushing (${requests} requests refused, from ${from}; e.g. ${examples}; ${lastSeen(last, stopped)}): a device on the LAN is inventing serials, or many terminals are not configured`,
      fix: "add the genuine ones to terminals with kind: adms, and keep the receiver's port to the terminals' network",
    };
  },

  /** A configured serial seen from another address than the one it is trusted at (trust on first use). */
  pushOtherAddress: (
    t: TerminalStatus,
    other: { address: string; addresses?: readonly string[]; more?: boolean; count: number; lastAt: string },
  ): Alert => {
    const addresses = other.addresses?.length ? other.addresses : [other.address];
    const one = addresses.length === 1 && !other.more;
    const from = one
      ? other.address
      : `${other.more ? 'more than ' : ''}${addresses.length} addresses (${addresses.join(', ')}${other.more ? ', ...' : ''})`;
    return {
      kind: 'push-other-address',
      cause: `terminal ${t.name} (SN=${t.serial}) was seen pushing from ${from} (${other.count} requests, last ${localTime(Date.parse(other.lastAt))}), but it pushes from ${t.push?.trustedAddress ?? '-'}: ${one ? 'another device may be using its serial' : 'other devices are using its serial'} (their requests were refused and changed nothing: no punch, user, stamp, command, protocol or contact)`,
      fix: one
        ? `if the terminal itself moved to ${other.address}, set allowFrom: [${other.address}] for ${t.name} and reload (punchgate then trusts that address); else set allowFrom to its address ${t.push?.trustedAddress ?? ''} to refuse the other device at the door`
        : `set allowFrom to the terminal's own address ${t.push?.trustedAddress ?? ''} for ${t.name} to refuse the others at the door, and find the devices sending with its serial (a terminal moves to one address, never to several)`,
    };
  },

  /**
   * A push terminal whose UTC offset changed (DST, a changed `timezone`) refused the CHECK that
   * asks it to read its options again, or has not acted on it: it keeps the old offset.
   */
  pushZoneStale: (name: string, z: PushZoneStatus): Alert => ({
    kind: 'push-zone-stale',
    cause: `terminal ${name} keeps a stale time zone: it was told ${offsetLabel(z.told)} when it last read its options, its zone is ${offsetLabel(z.now)} now, and ${
      z.check === 'failed'
        ? `it refused to read them again (CHECK answered ${z.returnCode ?? '?'}${z.doneAt ? ` at ${localTime(Date.parse(z.doneAt))}` : ''})`
        : `it has not read them again since it was asked (CHECK queued ${z.askedAt ? localTime(Date.parse(z.askedAt)) : '-'})`
    }: its punches are stamped in the old offset`,
    fix: `restart the terminal (it reads its options when it starts), or set its time zone on its menu (System > Date Time) to ${offsetLabel(z.now)}`,
  }),

  /** Posts to a listening Hikvision terminal's path from another address than the terminal's: refused. */
  hikvisionListenStranger: (
    terminal: string,
    allowed: string,
    other: { address: string; count: number; lastAt: number; mac?: string },
  ): Alert => ({
    kind: 'hikvision-listen-stranger',
    cause: other.mac
      ? `terminal ${terminal}: a device at its address ${other.address} posted events with the MAC address ${other.mac}, not the terminal's (${other.count} posts refused, last ${localTime(other.lastAt)}): another device may be posting as it (its posts changed nothing)`
      : `terminal ${terminal} posts its events from ${allowed}, but ${other.address} posted to its path (${other.count} posts, last ${localTime(other.lastAt)}): another device may be posting as it (its posts were refused and changed nothing)`,
    fix: other.mac
      ? `if the terminal was replaced, poll it (punchgate poll --terminal ${terminal}) so punchgate learns the new one; else find the device with the MAC address ${other.mac}`
      : `if the terminal itself moved to ${other.address}, set allowFrom: [${other.address}] for ${terminal} and reload; else find the device at ${other.address}`,
  }),

  /** Uploads answered OK that were not turned into punches: kept raw in the journal. */
  pushKept: (
    t: TerminalStatus,
    k: {
      table: string;
      held: number;
      lines: number;
      dropped: number;
      /** Of the dropped, those dropped for their age (absent: none). */
      droppedOld?: number;
      /** Lines turned into punches later by terminals reparse (absent: none). */
      reparsed?: number;
      lastAt: string | null;
      lastReason: string | null;
    },
  ): Alert => {
    const last = `last ${k.lastAt ? localTime(Date.parse(k.lastAt)) : '-'}: ${k.lastReason ?? '-'}`;
    // User uploads carry no punch, and reparse reads only punch tables (ATTLOG, rtlog): their
    // alert says what they are and sends no one to a reparse that would not read them.
    if (USER_TABLES.test(k.table)) return pushKeptUsers(t, k, last);
    const what = `terminal ${t.name}: ${k.held + k.dropped} ${k.table} upload(s) answered OK could not be turned into punches`;
    const learn =
      k.table === 'rtlog'
        ? `if they are passes, add their event code to punchEvents of ${t.name}, reload,`
        : 'update the terminal firmware or punchgate,';
    // Every one dropped (the bound is small, or they were many): none is left to read again.
    // Some may have been read again by a reparse before the others were dropped: not "all" then.
    const readAgain = k.reparsed
      ? `, the others were read again by punchgate terminals reparse (${k.reparsed} ${k.reparsed === 1 ? 'line' : 'lines'})`
      : '';
    if (k.held === 0)
      return {
        kind: 'push-kept',
        cause: `${what} (${last}); ${readAgain ? '' : 'all '}${k.dropped} were dropped${droppedWhy(k)}${readAgain}, none is kept`,
        fix: `${learn} and raise ${keptBoundToRaise(k)} to keep the next ones for punchgate terminals reparse ${t.name}`,
      };
    return {
      kind: 'push-kept',
      cause: `${what} (${k.lines} ${k.lines === 1 ? 'line' : 'lines'} in all, ${last}): ${k.held} kept raw in the journal${k.dropped > 0 ? `, ${k.dropped} more dropped${droppedWhy(k)}` : ''}`,
      fix:
        `${learn} then run punchgate terminals reparse ${t.name}; lines it still cannot read are no punches this punchgate reads: ` +
        'they stay kept as evidence (adms.keptUploads.maxAgeDays), and this alert ends a day after the last such upload',
    };
  },

  /**
   * A Dahua terminal misbehaved lately (src/sources/dahua/notes.ts): a poll stopped at a bound,
   * records dated implausibly, a log renumbered or cleared, an event stream beyond its bounds.
   */
  dahuaNote: noteAlert('dahua'),
  /** A push terminal's upload the receiver refused lately (src/sources/adms/notes.ts): too large. */
  pushNote: noteAlert('push'),
  /** A ZK terminal misbehaved lately (src/sources/zk/notes.ts): a real-time connection that keeps dropping. */
  zkNote: noteAlert('zk'),
  /** A BioTime server whose licence (or account) refuses the API: no punches are read. */
  biotimeApiRefused: (server: string, n: BioTimeNote): Alert => ({
    kind: 'biotime-api-refused',
    cause: `BioTime server ${server}: ${n.cause} (since ${localTime(n.at)})`,
    fix: n.fix,
  }),
  /** A BioTime server refuses the account's password (changed on the server?). */
  biotimePasswordRefused: (server: string, n: BioTimeNote): Alert => ({
    kind: 'biotime-password-refused',
    cause: `BioTime server ${server}: ${n.cause} (since ${localTime(n.at)})`,
    fix: n.fix,
  }),
  /** A BioTime server's transaction table was cleared or renumbered: read again without doubles. */
  biotimeTableRenumbered: (server: string, n: BioTimeNote): Alert => ({
    kind: 'biotime-table-renumbered',
    cause: `BioTime server ${server}: ${n.cause} (at ${localTime(n.at)})`,
    fix: n.fix,
  }),
  /** Punches reach a BioTime server long after they were made: it is behind its terminals. */
  biotimeServerBehind: (server: string, n: BioTimeNote): Alert => ({
    kind: 'biotime-server-behind',
    cause: `BioTime server ${server}: ${n.cause} (last seen ${localTime(n.at)})`,
    fix: n.fix,
  }),
  /**
   * A port the daemon cannot take (it keeps trying): the push terminal receiver (its terminals
   * cannot send) or the status page (not served). `push`: the push terminals waiting, the
   * Hikvision terminals that post (polled meanwhile).
   */
  listenerDown: (l: ListenerStatus, names: { push: string[]; posting: string[] }): Alert => {
    const port = /:(\d+)$/.exec(l.listen)?.[1] ?? l.listen;
    const since = l.downSince ? ` since ${localTime(Date.parse(l.downSince))}` : '';
    const why =
      l.code === 'EADDRINUSE'
        ? 'another program holds that port'
        : l.code === 'EACCES'
          ? 'a port below 1024 needs permission'
          : l.code === 'EADDRNOTAVAIL'
            ? 'this box has no such address'
            : `the system refuses it (${l.code ?? 'error'})`;
    const key = l.listener === 'push' ? 'adms.listen' : 'status.listen';
    const apply = l.listener === 'push' ? 'sudo systemctl restart punchgate' : 'sudo systemctl reload punchgate';
    const also = l.listener === 'push' ? " (and the terminals' server port to match)" : '';
    const fix =
      l.code === 'EADDRINUSE'
        ? `find it with ss -ltnp 'sport = :${port}' and stop it, or set ${key} to a free port${also} and ${apply}`
        : l.code === 'EACCES'
          ? `set ${key} to a port above 1024${also} and ${apply}`
          : l.code === 'EADDRNOTAVAIL'
            ? `set ${key} to an address of this box (ip -br addr) or 0.0.0.0, then ${apply}`
            : `check ${key}, then ${apply}`;
    const next = l.nextTryAt ? ` (next try ${localTime(Date.parse(l.nextTryAt))})` : '';
    if (l.listener === 'status') {
      return {
        kind: 'status-not-listening',
        cause: `the status page cannot listen on ${l.listen}${since}: ${why}; the page, /status.json, /metrics and /readyz are not served (punches are collected and delivered as usual)`,
        fix: `${fix}; punchgate keeps trying${next}`,
      };
    }
    const waiting =
      names.push.length > 0
        ? names.push.length === 1
          ? `push terminal ${names.push[0]} cannot send its punches (they wait on the terminal)`
          : `push terminals ${names.push.join(', ')} cannot send their punches (they wait on the terminals)`
        : 'push terminals cannot send their punches (they wait on the terminals)';
    const posting = names.posting.length;
    const polled =
      posting > 0
        ? `; Hikvision ${posting === 1 ? 'terminal' : 'terminals'} ${names.posting.join(', ')} ${posting === 1 ? 'is' : 'are'} only polled meanwhile`
        : '';
    return {
      kind: 'push-not-listening',
      cause: `the push terminal receiver cannot listen on ${l.listen}${since}: ${why}; ${waiting}${polled}`,
      fix: `${fix}; punchgate keeps trying${next}`,
    };
  },

  /** A BioTime poll ended at a bound, or transactions were numbered implausibly. */
  biotimeReading: (server: string, n: BioTimeNote): Alert => ({
    kind: 'biotime-reading',
    cause: `BioTime server ${server}: ${n.cause} (last at ${localTime(n.at)})`,
    fix: n.fix,
  }),
};

/**
 * Why delivery fails, in words, from its last error (the HRMS client's message, kept after it in
 * brackets for whoever must look further): what an admin can tell the HRMS's people.
 */
export function deliveryTrouble(lastError: string | null, keys = 'hrms'): string {
  if (!lastError) return 'the HRMS did not take the last batch';
  const words = deliveryTroubleWords(lastError, keys);
  return words ? `${words} (${lastError})` : `last error: ${lastError}`;
}

/**
 * The plain words for a delivery error that has them ("the HRMS refuses connections: ..."), else
 * undefined. `keys`: where the sink's settings are in the config (`hrms`, or `sinks[erp]`).
 */
export function deliveryTroubleWords(e: string, keys = 'hrms'): string | undefined {
  // First: the server answered and named its time (retry-after.ts says it, and the bound).
  return /asked to wait until .* \(Retry-After\)/.test(e)
    ? 'the HRMS asked punchgate to wait (Retry-After: see the last error)'
    : /ECONNREFUSED/.test(e)
      ? `the HRMS refuses connections: it is down or restarting (or ${keys}.baseUrl names the wrong port)`
      : /ENOTFOUND|EAI_AGAIN/.test(e)
        ? "the HRMS's host name is not found (DNS)"
        : /TIMEOUT|timed? ?out|DEADLINE|did not answer|within \d/i.test(e)
          ? 'the HRMS does not answer in time'
          : /ECONNRESET|UND_ERR_SOCKET|socket hang up|closed the connection|other side closed/i.test(e)
            ? 'the HRMS closes the connection without an answer'
            : /EHOSTUNREACH|ENETUNREACH/.test(e)
              ? 'no route from this box to the HRMS (network)'
              : speaksNoTls(e)
                ? `the HRMS answers plain HTTP, not HTTPS, at ${keys}.baseUrl (its port or its https:// is wrong)`
                : certificateTrouble(e)
                  ? certificateWords(e, keys)
                  : /^HTTP 5\d\d/.test(e)
                    ? 'the HRMS is up but failing'
                    : undefined;
}

/** "what happened: put the token ..." into its two halves at the first instruction (check does the same). */
function splitFix(text: string): [string, string | undefined] {
  const m = /^(.*?): ((?:put|set|make|give|check|run|add|correct|install) .*)$/s.exec(text);
  return m ? [m[1]!, m[2]!] : [text, undefined];
}
