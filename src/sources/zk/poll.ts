import type { ZkTerminalConfig } from '../../config/terminals.js';
import { isBusyJournalError } from '../../journal/errors.js';
import { codeProblem, deviceIdentity, wallClockAt, wallClockDiffSeconds, type Punch } from '../../punch.js';
import { journalSyncedApart } from '../journal-synced-apart.js';
import { logPolled } from '../punch-log.js';
import {
  BUSY_JOURNAL_POLL_ERROR,
  configKeyOf,
  noteWorking,
  recordFailedPoll,
  type TerminalFault,
} from '../poll-outcome.js';
import { describeZkFault } from './fault.js';
import { syncTerminalClock } from '../clock-sync.js';
import { activeZkNotes, writeZkNote } from './notes.js';
import type { SourceDeps } from '../types.js';
import { ZkAuthError, ZkClient, ZkConnectionError, ZkProtocolError, ZkTimeoutError } from './client/index.js';
import { decideClear, type ClearDecision } from './clear-policy.js';
import { clearUnlessGrown, enableIfLeftDisabled } from './clear-log.js';
import { PollDeadline } from './poll-deadline.js';
import type { ZkAttendance, ZkFreeSizes } from './protocol/index.js';

export interface PollResult {
  terminal: string;
  ok: boolean;
  serial: string;
  records: number;
  users: number;
  added: number;
  duplicates: number;
  quarantined: number;
  /** Records whose user id is not a usable biometric code (see codeProblem): not journalled, left on the terminal. */
  badCodes: number;
  skewSeconds: number | null;
  cleared: boolean;
  /** True when the download was skipped: the record count was that of the last complete download. */
  unchanged: boolean;
  /** Set after a complete download: what the next poll compares against. */
  download?: DownloadMark;
  /** Set after a complete download: the terminal's clock up to which its log is read (TerminalRecord.readUpTo). */
  readUpTo?: string;
  error?: string;
  /** Failed only because another process held the journal: not the terminal's failure (no backoff). */
  noBackoff?: boolean;
}

/**
 * What a complete download saw. A ZK log only grows until it is cleared (or is full: then it is
 * read every time), so a later poll that finds the same device with the same record count has
 * nothing new and skips the download:
 * reading 10,000 records every minute keeps a terminal busy (slow to answer the people
 * punching) and the box's memory churning for nothing. The skip lasts at most an hour, so even
 * a log cleared at the terminal and refilled to the same count is read within the hour.
 */
export interface DownloadMark {
  serial: string;
  records: number;
  at: number;
  /** The terminal gave no record counts (readCounts): said once as a warning, then at debug. */
  countless?: boolean;
  /** Replies of another session came in its name (noteForeign): said once as a warning, then at debug. */
  foreign?: boolean;
}

export const REDOWNLOAD_AFTER_MS = 3_600_000;

/** Builds a client for a terminal (tests and the simulator pass their own options through here). */
export type ClientFactory = (cfg: ZkTerminalConfig) => ZkClient;

export const defaultClientFactory: ClientFactory = (cfg) =>
  new ZkClient({
    host: cfg.host,
    port: cfg.port,
    transport: cfg.transport,
    commKey: cfg.commKey,
    timeoutMs: cfg.timeoutMs,
    stateByte: cfg.stateByte,
    encoding: cfg.encoding,
  });

/**
 * One poll of one ZK terminal: connect, identify, read counts and clock, download the
 * attendance log, check the count, journal new punches in one transaction, maybe set the
 * clock, maybe clear the log, disconnect. Never throws: trouble is in the result and the ledger.
 * With `previous` (the mark of this terminal's last complete download), an unchanged log is not
 * downloaded again (see DownloadMark).
 */
export async function pollTerminal(
  cfg: ZkTerminalConfig,
  deps: SourceDeps,
  factory = defaultClientFactory,
  signal?: AbortSignal,
  previous?: DownloadMark,
): Promise<PollResult> {
  const { ledger, logger, clock } = deps;
  const log = logger.child({ terminal: cfg.name });
  const result: PollResult = {
    terminal: cfg.name,
    ok: false,
    serial: '',
    records: 0,
    users: 0,
    added: 0,
    duplicates: 0,
    quarantined: 0,
    badCodes: 0,
    skewSeconds: null,
    cleared: false,
    unchanged: false,
  };
  if (signal?.aborted) return { ...result, error: 'stopped before the poll began' };
  const client = factory(cfg);
  // Shutdown tears the connection down at once; whatever was journalled stays journalled.
  const onAbort = () => client.destroy();
  signal?.addEventListener('abort', onAbort, { once: true });
  const startedAt = clock.now();
  const deadline = new PollDeadline(
    cfg,
    startedAt,
    () => clock.now(),
    () => client.destroy(),
  );
  let reached = false;
  try {
    await client.connect();
    reached = true;
    await enableIfLeftDisabled(client, deps.state, cfg.name, log);
    // Under the identity the journal keeps it under (a bounded stand-in for a serial that breaks the text rule).
    const serial = deviceIdentity((await client.getSerialNumber().catch(() => '')).trim());
    const firmware = await client.getFirmware().catch(() => null);
    result.serial = serial;
    const known = ledger.get(cfg.name);
    if (known?.serial && serial && known.serial !== serial) {
      log.warn(
        { was: known.serial, now: serial },
        'terminal answers with another serial number: device swapped or address changed; its punches are kept apart',
      );
      ledger.update(cfg.name, { previousSerial: known.serial, serialChangedAt: clock.now() });
    }
    const info = await readCounts(client, log, previous?.countless === true && previous.serial === serial);
    result.users = info?.users ?? 0;
    if (info) deadline.recordsAnnounced(info.records);

    const terminalTime = await client.getTime();
    const boxTime = wallClockAt(clock.now(), cfg.timezone);
    // How far this device's log was read before, by its own clock (same device only): a new punch
    // dated well before that was recorded while the clock was behind (see IngestOptions.readUpTo).
    const readUpTo = known && known.serial === serial && known.readUpTo ? known.readUpTo : undefined;
    result.skewSeconds = wallClockDiffSeconds(terminalTime, boxTime);
    await syncTerminalClock(
      cfg,
      result.skewSeconds,
      { clockSteps: deps.clockSteps, log },
      () => client.setTime(wallClockAt(clock.now(), cfg.timezone)),
      (words) => writeZkNote(deps.state, cfg.name, 'clock', words, clock.now(), log),
    );

    // An unknown serial (the terminal did not say) never counts as the same device. A full log
    // keeps its count while new punches write over its oldest records (cyclic deletion): read.
    result.unchanged =
      info !== null &&
      !logFull(info) &&
      previous !== undefined &&
      serial !== '' &&
      previous.serial === serial &&
      previous.records === info.records &&
      clock.now() - previous.at < REDOWNLOAD_AFTER_MS;
    if (result.unchanged && info) {
      result.records = info.records;
      log.debug({ records: info.records }, `terminal ${cfg.name}: no new punches (its log is unchanged)`);
    } else {
      const records = await client.getAttendances((got, total) => deadline.progress(got, total));
      result.records = records.length;
      const askedAgain = client.lastDownload?.piecesAskedAgain ?? 0;
      // Read whole in the end, but the link loses (or doubles) data: said before it fails a poll.
      if (askedAgain > 0)
        log.info(
          { piecesAskedAgain: askedAgain },
          `terminal ${cfg.name}: ${askedAgain} ${askedAgain === 1 ? 'piece' : 'pieces'} of its log did not come whole and ${askedAgain === 1 ? 'was' : 'were'} asked again (data lost or doubled on the way)`,
        );
      const punches = usablePunches(records, cfg.name, serial, result, log);
      // The clock's evidence: this poll's skew, or the previous one's if it was further behind
      // (a clock set right just now still has the punches it recorded while wrong in its log).
      const previousSkew = known && known.serial === serial ? known.skewSeconds : null;
      const clockSkewSeconds =
        previousSkew !== null && previousSkew < result.skewSeconds ? previousSkew : result.skewSeconds;
      const ingestOptions = {
        timezone: cfg.timezone,
        readUpTo,
        clockSkewSeconds,
        // Judged "in the future" against the terminal's own clock as read now (before any syncClock).
        currentSkewSeconds: result.skewSeconds,
      };
      // The disk sync beside the event loop where the journal can (on an SD card it takes 5 to
      // 50 ms, and 200 terminals are polled a minute): the poll waits for it, the daemon does not.
      const { result: ingest, synced } = journalSyncedApart(deps.sink, punches, ingestOptions);
      Object.assign(result, ingest);
      logPolled(log, cfg.name, ingest);
      if (ingest.added > 0) deps.onPunches?.(ingest.added);
      // On the disk before the poll goes on: only then may the terminal's log be cleared. A failed
      // sync fails the poll (nothing cleared; the log is read again at the next one).
      await synced;
      // Punches can be added between GET_FREE_SIZES and the download, never removed.
      if (info && records.length < info.records) {
        throw new Error(`downloaded ${records.length} of ${info.records} records; will read the log again next poll`);
      }

      // Bytes of the log that made no whole record may be part of a punch not read: a log read so
      // is never cleared (its whole records are journalled; the terminal keeps the rest).
      const stray = client.lastDownload?.malformedBytes ?? 0;
      // The same record twice in one download may have come in place of another, never sent: the
      // count then matches a log that holds a punch not read.
      const doubled = records.length - new Set(records.map(recordKey)).size;
      noteDoubled(deps, cfg, doubled > 0 ? { doubled, example: firstRepeated(records)!, serial } : null, log);
      const decision: ClearDecision = !info
        ? { clear: false, reason: 'the terminal does not report its record count, which clearing needs' }
        : stray > 0
          ? {
              clear: false,
              reason: `its log held ${stray} bytes that make no whole record (part of a punch not read?)`,
            }
          : doubled > 0
            ? {
                clear: false,
                reason: `its download held ${doubled} ${doubled === 1 ? 'record' : 'records'} twice (sent in place of another not read?)`,
              }
            : decideClear({
                terminal: cfg.name,
                device: serial,
                records,
                clearAfterDays: cfg.clearAfterDays,
                timezone: cfg.timezone,
                now: clock.now(),
                check: deps.deliveryCheck,
              });
      // A terminal that left the disable unanswered is not disabled again for a day: each try
      // leaves it unable to take punches for as long as the wait for that answer lasts.
      const unanswered = decision.clear && disableUnansweredLately(deps, cfg.name);
      if (decision.clear && !unanswered) {
        const outcome = await clearUnlessGrown(
          client,
          deps.state,
          cfg.name,
          records.length,
          log,
          decision.reason,
          clock.now(),
        );
        result.cleared = outcome === 'cleared';
        if (outcome !== 'kept') noteDisableUnanswered(deps, cfg, outcome === 'disable-unanswered', log);
      } else if (unanswered) {
        log.debug({ reason: decision.reason }, 'not clearing: the terminal left the disable unanswered within a day');
      } else if (cfg.clearAfterDays) {
        // Said as a warning when the log itself is in doubt, not at every poll of a young log.
        log[stray > 0 || doubled > 0 ? 'warn' : 'debug']({ reason: decision.reason }, 'not clearing the terminal log');
      }
      result.download = {
        serial,
        records: result.cleared ? 0 : records.length,
        at: startedAt,
        ...(info === null ? { countless: true } : {}),
        ...(client.foreignPackets > 0 ? { foreign: true } : {}),
      };
      // Read up to the terminal's clock at the start, unless it runs ahead of the box's (a punch
      // of a clock set back from the future is genuine); never back.
      const upTo = terminalTime < boxTime ? terminalTime : boxTime;
      result.readUpTo = readUpTo && readUpTo > upTo ? readUpTo : upTo;
    }

    if (info) noteFullLog(deps, cfg, logFull(info) && !result.cleared ? info.recordCapacity : null, log);
    await client.disconnect();
    result.ok = true;
    noteWorking(known, log, cfg.name, clock.now());
    ledger.update(cfg.name, {
      serial: serial || known?.serial || '',
      online: true,
      lastPollAt: startedAt,
      lastSuccessAt: clock.now(),
      offlineSince: null,
      lastError: null,
      skewSeconds: result.skewSeconds,
      records: result.cleared ? 0 : Math.max(info?.records ?? 0, result.records),
      users: info?.users ?? known?.users ?? 0,
      firmware,
      ...(result.readUpTo ? { readUpTo: result.readUpTo } : {}),
    });
  } catch (e) {
    client.destroy();
    if (signal?.aborted) {
      // The daemon is stopping and cut the poll short itself: not the terminal's fault, so no
      // "no answer" warning and no failed poll on its record. Nothing is lost: what was not
      // journalled is read again at the next start.
      log.debug({ err: String(e) }, 'poll stopped: punchgate is stopping');
      result.error = 'stopped while polling';
      return result;
    }
    result.noBackoff = !deadline.passed && isBusyJournalError(e);
    const detail = e instanceof Error ? e.message : String(e);
    const key = configKeyOf(deps, cfg.name);
    const fault: TerminalFault = deadline.passed
      ? {
          cause: deadline.message(),
          fix: `raise ${key}.pollDeadlineMs (or pollDeadlinePerRecordMs), or let punchgate clear its log once delivered (${key}.clearAfterDays); nothing is lost, the log is read again`,
        }
      : reached && !isZkError(e)
        ? {
            cause: detail,
            fix: "nothing is lost: the terminal's log is read again at the next poll; punchgate check tests it",
          }
        : describeZkFault(e, cfg, key);
    result.error = result.noBackoff ? BUSY_JOURNAL_POLL_ERROR : fault.cause;
    if (result.noBackoff) log.warn({ err: result.error }, 'poll failed');
    else recordFailedPoll(ledger, log, cfg.name, { reached, startedAt, fault, detail });
  } finally {
    deadline.clear();
    signal?.removeEventListener('abort', onAbort);
    noteForeign(client.foreignPackets, cfg.name, previous?.foreign === true, log);
  }
  return result;
}

/**
 * Packets that answered punchgate's requests in the terminal's name but from another session were
 * not taken (nothing they held is journalled): said once per poll however many came, as a warning
 * the first time (`saidBefore`: the last complete download met them too), then at debug, so a
 * device that keeps at it does not flood the log.
 */
function noteForeign(count: number, terminal: string, saidBefore: boolean, log: SourceDeps['logger']): void {
  if (count === 0) return;
  log[saidBefore ? 'debug' : 'warn'](
    { foreignPackets: count },
    `terminal ${terminal}: ${count} ${count === 1 ? 'reply' : 'replies'} came in its name from another session and ${count === 1 ? 'was' : 'were'} not taken: another device on the network answering as the terminal, its address forged? Nothing those replies held was journalled; find that device`,
  );
}

/** A record's every field: two records alike in all are the same record sent twice. */
const recordKey = (r: ZkAttendance): string =>
  JSON.stringify([r.uid, r.userId, r.logTime, r.state, r.verifyType, r.workCode ?? null]);

/** The first record a download holds twice (in the terminal's order). */
function firstRepeated(records: readonly ZkAttendance[]): ZkAttendance | undefined {
  const seen = new Set<string>();
  for (const r of records) {
    const k = recordKey(r);
    if (seen.has(k)) return r;
    seen.add(k);
  }
  return undefined;
}

/**
 * A download holding a record twice is an alert for as long as downloads do: the record sent twice
 * may stand in place of a punch the terminal never sent (its count then matches), which no
 * download over the network shows. Whether the log truly holds it twice can only be told from the
 * terminal's own export: its USB stick file, which `punchgate import` reads (a punch the downloads
 * missed is journalled, the rest are duplicates). So the log is never cleared by punchgate (a
 * clear would wipe that punch unread), and the admin is told how to recover and clear it.
 * `found` null: a whole download without (the note goes).
 */
function noteDoubled(
  deps: SourceDeps,
  cfg: ZkTerminalConfig,
  found: { doubled: number; example: ZkAttendance; serial: string } | null,
  log: SourceDeps['logger'],
) {
  const words =
    found === null
      ? null
      : {
          cause: `its log downloads hold ${found.doubled} ${found.doubled === 1 ? 'record' : 'records'} twice (user ${found.example.userId} at ${found.example.logTime}): a record sent twice may stand in place of a punch the terminal did not send, which no download shows${cfg.clearAfterDays ? ', so punchgate does not clear its log' : ''}`,
          fix: `export its attendance log to a USB stick at the terminal and read it in: punchgate import --terminal ${cfg.name} /media/usb/${found.serial || '<serial>'}_attlog.dat (a punch the downloads missed is journalled, the others count as duplicates); then clear the log at the terminal, and update its firmware`,
        };
  writeZkNote(deps.state, cfg.name, 'doubled', words, deps.clock.now(), log);
}

/** The log holds as many records as it can: a new punch writes over the oldest, or is refused. */
const logFull = (info: ZkFreeSizes): boolean => info.recordCapacity > 0 && info.records >= info.recordCapacity;

/**
 * A full log is an alert for as long as it lasts: the terminal either writes new punches over
 * its oldest records (any not read by then are gone) or refuses them at the door, as it is set.
 * `capacity` null: there is room (the note goes).
 */
function noteFullLog(deps: SourceDeps, cfg: ZkTerminalConfig, capacity: number | null, log: SourceDeps['logger']) {
  const key = configKeyOf(deps, cfg.name);
  const words =
    capacity === null
      ? null
      : {
          cause: `its log is full (${capacity} records): each new punch writes over its oldest record, or is refused at the terminal, as it is set`,
          fix: cfg.clearAfterDays
            ? `punchgate clears it once every record on it is delivered and older than ${cfg.clearAfterDays} days: lower ${key}.clearAfterDays, or see why punches wait (punchgate status)`
            : `set ${key}.clearAfterDays (say 30): punchgate then clears its log once every record on it is delivered`,
        };
  if (words) log.debug({ capacity }, words.cause);
  writeZkNote(deps.state, cfg.name, 'full', words, deps.clock.now(), log);
}

/** The terminal left the disable a clear needs unanswered within the last day (its note is shown). */
const disableUnansweredLately = (deps: SourceDeps, terminal: string): boolean =>
  activeZkNotes(deps.state, terminal, deps.clock.now()).some((n) => n.topic === 'clear');

/**
 * Said in the status while a terminal leaves DISABLEDEVICE unanswered (firmware that ignores it):
 * its punches are read and delivered, only its log is not cleared. Removed by a clear that works.
 */
function noteDisableUnanswered(
  deps: SourceDeps,
  cfg: ZkTerminalConfig,
  unanswered: boolean,
  log: SourceDeps['logger'],
) {
  const key = configKeyOf(deps, cfg.name);
  const words = unanswered
    ? {
        cause: `it does not answer the request to pause punching (DISABLEDEVICE) that clearing its log needs, so punchgate does not clear its log (it tries again in a day); its punches are read and delivered as before`,
        fix: `nothing is lost; restart the terminal or update its firmware, or clear its log at the terminal once punchgate status shows every punch delivered; remove ${key}.clearAfterDays to stop the attempts`,
      }
    : null;
  writeZkNote(deps.state, cfg.name, 'clear', words, deps.clock.now(), log);
}

/**
 * GET_FREE_SIZES, or null when the terminal gives no usable counts: a WL20 answers it with a single
 * 4-byte 0 (fananimi/pyzk issue #76), newer firmware with other layouts (pyzk #126). Its log is still
 * read (the record size then comes from the data); what needs the count (skipping an unchanged
 * log, the short-download check, clearing) is left out, so nothing is cleared on a guess. Warned
 * about once (`saidBefore`: the last complete download of this device had no counts either).
 */
async function readCounts(
  client: ZkClient,
  log: SourceDeps['logger'],
  saidBefore: boolean,
): Promise<ZkFreeSizes | null> {
  try {
    return await client.getInfo();
  } catch (e) {
    if (!(e instanceof ZkProtocolError)) throw e;
    // Once a run (and again after a restart or a device swap): the same words every minute bury the log.
    log[saidBefore ? 'debug' : 'warn'](
      { err: e.message },
      'terminal does not report its record counts: its whole log is read at every poll and never cleared by punchgate',
    );
    return null;
  }
}

/** At most this many bad records are named in the log per poll; the count covers them all. */
const BAD_RECORDS_LOGGED = 5;

/**
 * The punches of a download, without records whose user id is not a usable code (codeProblem):
 * those are logged with their record number and left on the terminal (the log is then never
 * cleared: clear-policy counts them as undelivered), never sent to the HRMS.
 */
function usablePunches(
  records: readonly ZkAttendance[],
  terminal: string,
  device: string,
  result: PollResult,
  log: SourceDeps['logger'],
): Punch[] {
  const punches: Punch[] = [];
  const bad: { record: number; reason: string }[] = [];
  records.forEach((r, i) => {
    const reason = codeProblem(r.userId);
    if (reason) {
      result.badCodes++;
      if (bad.length < BAD_RECORDS_LOGGED) bad.push({ record: i + 1, reason });
      return;
    }
    punches.push({
      terminal,
      device,
      biometricCode: r.userId,
      logTime: r.logTime,
      verifyType: r.verifyType,
      punchState: r.state,
    });
  });
  if (result.badCodes > 0) {
    log.warn(
      { count: result.badCodes, records: bad },
      'attendance records with an unusable user id were not journalled (they stay on the terminal)',
    );
  }
  return punches;
}

/** An error of the ZK client itself (as opposed to one of ours, such as a short download). */
function isZkError(e: unknown): boolean {
  return (
    e instanceof ZkAuthError ||
    e instanceof ZkConnectionError ||
    e instanceof ZkProtocolError ||
    e instanceof ZkTimeoutError
  );
}
