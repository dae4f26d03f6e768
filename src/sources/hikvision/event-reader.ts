import type { IngestResult } from '../../journal/types.js';
import { utcWallClock, type Punch } from '../../punch.js';
import type { Logger } from '../../util/logger.js';
import type { ReadCounts } from '../http-poll.js';
import type { DeviceTime, EventQuery, HikvisionClient } from './client.js';
import { SEARCH_FAULTS, splitIsoTime } from './client.js';
import type { UnknownMinorLog } from './unknown-minors.js';
import { HikApiError, HikConnectionError } from './errors.js';
import { classify, fromSearchRow, unlistedPass } from './events.js';
import { MAX_POLL_PAGES, monotonicNow, POLL_DEADLINE_MS } from './limits.js';
import { END_SERIAL, refusesSerialRange, smallerEndSerial } from './serial-range.js';

/**
 * Reading a device's new access events from where the journal left off.
 *
 * The cursor is the newest event read (its serialNo and wall-clock time), kept per terminal and
 * device in the journal and written in the same transaction as the punches read with it: a crash
 * can leave it behind the punches (they are read again and deduplicated), never ahead of them.
 *
 * - serial mode (the normal case): `beginSerialNo = last` (the last event read, asked for again to
 *   see that the numbering did not start again) with a large `endSerialNo` (the
 *   largest the firmware accepts: see serial-range.ts).
 * - time mode, for firmware that refuses or ignores serial filters: a `startTime` window opening
 *   `overlapMinutes` before the newest event read (or before the device's clock, if that is
 *   earlier: a clock set back is followed); what the overlap reads again is deduplicated.
 *
 * One bad event cannot blind the source: an event numbered far beyond the others, or dated far
 * after the device's own clock, is journalled like any other (a pass with an impossible time is
 * quarantined by the journal) but never moves the cursor. And a cursor that finds nothing while
 * the device holds newer events (its numbering restarted, or an older punchgate let a bad event
 * carry the cursor away) is noticed and the log read again from the start (deduplicated).
 */
export interface EventCursor {
  serialNo?: number;
  /** Wall clock of the newest event read, `YYYY-MM-DD HH:mm:ss`. */
  time?: string;
  /**
   * The time the event numbered `serialNo` carries (its wall clock, or its text when it has none):
   * the next search asks for that event again, and a device that numbers from 1 again after a reset
   * has given the number to another event (see `search`).
   */
  at?: string;
}

export type FilterMode = 'serial' | 'time';

export const cursorKey = (device: string) => `events:${device}`;

export function parseCursor(s: string | undefined): EventCursor {
  if (!s) return {};
  try {
    const o = JSON.parse(s) as { serialNo?: unknown; time?: unknown; at?: unknown };
    return {
      ...(typeof o.serialNo === 'number' && Number.isSafeInteger(o.serialNo) ? { serialNo: o.serialNo } : {}),
      ...(typeof o.time === 'string' ? { time: o.time } : {}),
      ...(typeof o.at === 'string' ? { at: o.at } : {}),
    };
  } catch {
    return {};
  }
}

export const formatCursor = (c: EventCursor) => JSON.stringify(c);

export { END_SERIAL } from './serial-range.js';
const EARLIEST = '2000-01-01 00:00:00';
const LATEST = '2037-12-31 23:59:59';
/**
 * Punches are committed (with the cursor) at least every this many events read, or this long:
 * each commit is a disk sync, and a crash costs at most this much reading again.
 */
const COMMIT_ROWS = 10_000;
const COMMIT_MS = 1000;
/** An event dated more than this after the device's own clock (read at the start of the poll) is implausible. */
const FUTURE_MINUTES = 24 * 60;
/**
 * Serial numbers grow one by one: a step of more than this from the events before is implausible,
 * unless JUMP_CONFIRMED more events carry on from it (then the device's numbering did jump).
 */
export const MAX_SERIAL_STEP = 1_000_000;
const JUMP_CONFIRMED = 3;

export interface ReadLimits {
  /** Pages this poll may still ask for. */
  maxPages: number;
  /** Monotonic ms after which no further page is asked for. */
  deadline: number;
}

export interface ReadOptions {
  client: HikvisionClient;
  terminal: string;
  device: string;
  minors: ReadonlySet<number>;
  /** Minors in neither the passes nor the known non-passes: said once per code (unknown-minors.ts). */
  unknownMinors?: UnknownMinorLog;
  cursor: EventCursor;
  mode: FilterMode;
  /** The endSerialNo the firmware accepted before (END_SERIAL until one was refused). */
  endSerial?: number;
  overlapMinutes: number;
  /** The device's clock as read at the start of this poll. */
  deviceNow: DeviceTime;
  /** Journals punches and the cursor in one transaction. */
  commit: (punches: Punch[], cursor: EventCursor) => IngestResult;
  log: Logger;
  signal?: AbortSignal;
  /** The monotonic clock (tests pass their own). */
  monotonic?: () => number;
  /** Commit at least every this many events read (default COMMIT_ROWS). */
  commitRows?: number;
  limits?: Partial<ReadLimits>;
}

export interface ReadResult extends ReadCounts {
  mode: FilterMode;
  /** Set when this read found the firmware without serial filters. */
  switchedToTime?: string;
  /** The endSerialNo the firmware accepts (when a larger one was refused, the smaller one that worked). */
  endSerial: number;
  cursor: EventCursor;
  /** Authentication passes among the events read. */
  passes: number;
  /** Authentication passes whose minor the terminal's `minors` leaves out (not punches), by minor. */
  unlisted?: Record<number, number>;
  /** The cursor was found past every event the device holds and set back: in words. */
  cursorLost?: string;
}

/** `YYYY-MM-DD HH:mm:ss` minus `minutes`, on the calendar (no zone). */
export function wallClockMinus(wall: string, minutes: number): string {
  const [d, t] = wall.split(' ') as [string, string];
  const [y, mo, da] = d.split('-').map(Number) as [number, number, number];
  const [h, mi, s] = t.split(':').map(Number) as [number, number, number];
  return utcWallClock(Date.UTC(y, mo - 1, da, h, mi, s) - minutes * 60_000);
}

const isoAt = (wall: string, offset: string) => `${wall.replace(' ', 'T')}${offset}`;

/** The latest wall-clock time an event of this device may plausibly carry. */
export const latestPlausible = (deviceNow: DeviceTime) => wallClockMinus(deviceNow.wallClock, -FUTURE_MINUTES);

/** The device ignores the serial filter: it sent events below the beginSerialNo asked for. */
class SerialFilterIgnored extends Error {}

/** The time an event is known by in the cursor: its wall clock, or its text (bounded) when it has none. */
const eventAt = (time: unknown, wall: string | undefined): string => wall ?? String(time).slice(0, 64);

/**
 * What a serial search found of the event the cursor stands on: `held` (still there, with its
 * time), `restarted` (the number now carries another event: the device numbers from 1 again), or
 * nothing said (not asked for, or gone from the device's log).
 */
type AnchorFound = { held: true } | { restarted: string } | undefined;

class Batch {
  punches: Punch[] = [];
  /** Events read since the last commit (door events and failures move the cursor too). */
  rows = 0;
  lastCommit: number;
  constructor(
    private readonly now: () => number,
    private readonly commitRows: number,
  ) {
    this.lastCommit = now();
  }
  due(): boolean {
    return this.rows >= this.commitRows || this.now() - this.lastCommit >= COMMIT_MS;
  }
}

export async function readEvents(o: ReadOptions): Promise<ReadResult> {
  const mono = o.monotonic ?? monotonicNow;
  const limits: ReadLimits = {
    maxPages: o.limits?.maxPages ?? MAX_POLL_PAGES,
    deadline: o.limits?.deadline ?? mono() + POLL_DEADLINE_MS,
  };
  const r: ReadResult = {
    mode: o.mode,
    endSerial: o.endSerial ?? END_SERIAL,
    cursor: { ...o.cursor },
    pages: 0,
    rows: 0,
    passes: 0,
    malformed: 0,
    added: 0,
    duplicates: 0,
    quarantined: 0,
    implausible: 0,
  };
  const run = (mode: FilterMode) => search(o, r, mode, limits, mono);
  if (o.mode === 'serial') {
    for (;;) {
      try {
        const anchor = await run('serial');
        if (anchor && 'restarted' in anchor) {
          // Before anything of this search was stored: read the new numbering from its start.
          o.log.warn({ was: r.cursor }, anchor.restarted);
          r.cursor = {};
          await run('serial');
        } else if (r.rows === 0 && !r.stopped && !anchor) {
          const lost = await cursorPastDevice(o, r);
          if (lost) {
            o.log.warn({ was: r.cursor }, lost.message);
            if (lost.implausible) r.cursorLost = lost.message;
            r.cursor = {};
            await run('serial');
          }
        }
        return r;
      } catch (e) {
        if (r.pages === 0 && refusesSerialRange(e)) {
          // A refused range is not firmware without serial filters: try the largest end it takes.
          const smaller = await smallerEndSerial(o.client, r.endSerial, o.signal);
          if (smaller !== undefined) {
            o.log.warn(
              { refused: r.endSerial, now: smaller, reason: (e as Error).message },
              'the firmware refuses that large an endSerialNo: searching with a smaller one',
            );
            r.endSerial = smaller;
            continue;
          }
        }
        const reason = serialFilterFailure(e, r);
        if (!reason) throw e;
        r.mode = 'time';
        r.switchedToTime = reason;
        o.log.warn(
          { reason, overlapMinutes: o.overlapMinutes },
          'the firmware does not support serial-number filters: reading events by time window instead',
        );
        break;
      }
    }
  }
  await run('time');
  return r;
}

/**
 * Nothing new by serial number: does the device hold events the cursor has passed over? Either
 * its numbering started again (its log cleared, a reset: newer events with numbers at or below
 * the cursor's), or the cursor itself is implausible (left by an older punchgate after a bad
 * event: dated after the device's clock, or numbered far beyond its newest events). Without this
 * check the cursor would wait above the device's numbers for ever. A probe of a few events.
 */
async function cursorPastDevice(
  o: ReadOptions,
  r: ReadResult,
): Promise<{ message: string; implausible: boolean } | undefined> {
  const { serialNo, time } = r.cursor;
  if (serialNo === undefined) return undefined;
  const latest = latestPlausible(o.deviceNow);
  const timeOk = time !== undefined && time <= latest;
  // From the cursor's time when it is plausible, else the newest events the device holds.
  const from = timeOk ? wallClockMinus(time, -1 / 60) : wallClockMinus(o.deviceNow.wallClock, o.overlapMinutes);
  const q: EventQuery = {
    major: 5,
    minor: 0,
    startTime: isoAt(from, o.deviceNow.offset),
    endTime: isoAt(LATEST, o.deviceNow.offset),
    maxResults: 5,
  };
  const page = await o.client.eventPage(q, `probe-${serialNo}`, 0, o.signal).catch(() => undefined);
  for (const row of page?.rows ?? []) {
    const e = fromSearchRow(row);
    const wall = splitIsoTime(e.time)?.wallClock;
    if (e.serialNo === undefined || e.serialNo > serialNo || wall === undefined || wall > latest) continue;
    if (timeOk && wall <= time) continue;
    if (timeOk && serialNo - e.serialNo <= MAX_SERIAL_STEP) {
      return {
        implausible: false,
        message: `the device's event numbers started again (its log was cleared or reset; was at ${serialNo}, now ${e.serialNo}): reading it from the start`,
      };
    }
    return {
      implausible: true,
      message: `the read position (event ${serialNo}${time ? ` of ${time}` : ''}) was past every event the terminal holds (its newest: event ${e.serialNo} of ${wall}): its log is read again from the start, and what was read already is not stored twice`,
    };
  }
  return undefined;
}

/** Why a serial search shows the firmware has no serial filters, or undefined when it failed otherwise. */
function serialFilterFailure(e: unknown, r: ReadResult): string | undefined {
  if (e instanceof SerialFilterIgnored) return e.message;
  // Refused on the first page: the firmware does not know beginSerialNo/endSerialNo.
  if (e instanceof HikApiError && r.pages === 0 && (e.httpStatus === 400 || e.unsupported)) return e.message;
  return undefined;
}

/** An error that ends a search by the device's fault, after which what was read stands. */
function deviceFault(e: unknown): string | undefined {
  if (e instanceof HikApiError && SEARCH_FAULTS.has(e.subStatusCode ?? '')) return e.message;
  if (e instanceof HikConnectionError && e.code === 'ANSWER_TOO_LARGE') return e.message;
  return undefined;
}

/**
 * Which serial numbers may carry the cursor. A number far above the ones before is held back as
 * a suspect; once JUMP_CONFIRMED events carry on from it, the device's numbering did jump and it
 * is taken. Suspects left at the end of a search are implausible: the cursor stays below them.
 */
class SerialGuard {
  private suspects: number[] = [];
  constructor(
    /** The highest plausible serial number read (the cursor's, to begin with). */
    public good: number | undefined,
    /** The time of the event numbered `good` (EventCursor.at). */
    public goodAt: string | undefined,
  ) {}

  /** Takes one event's number and time; returns true when it is (for now) implausible. */
  take(s: number, at: string): boolean {
    const last = this.suspects.at(-1);
    if (last !== undefined && s > last && s - last <= MAX_SERIAL_STEP) {
      this.suspects.push(s);
      if (this.suspects.length >= JUMP_CONFIRMED) {
        // s is above every suspect, and the first suspect is above good: s is the new good.
        this.good = s;
        this.goodAt = at;
        this.suspects = [];
        return false;
      }
      return true;
    }
    if (this.good !== undefined && s > this.good + MAX_SERIAL_STEP) {
      this.suspects = [s];
      return true;
    }
    if (this.good === undefined || s > this.good) {
      this.good = s;
      this.goodAt = at;
    }
    return false;
  }

  get pending(): number {
    return this.suspects.length;
  }
}

async function search(
  o: ReadOptions,
  r: ReadResult,
  mode: FilterMode,
  limits: ReadLimits,
  mono: () => number,
): Promise<AnchorFound> {
  const begin = (r.cursor.serialNo ?? 0) + 1;
  /**
   * A serial search starts at the event the cursor stands on, not after it: still there with the
   * same time, the numbering goes on; another time under its number, the device numbers from 1
   * again (a reset, a log cleared) and has passed the cursor's number already, so the events
   * after it are not the ones after the cursor's (their first numbers would be taken as read).
   */
  const anchor = mode === 'serial' ? r.cursor.serialNo : undefined;
  let found: AnchorFound;
  let q: EventQuery;
  if (mode === 'serial') {
    const from = anchor ?? begin;
    q = { major: 5, minor: 0, beginSerialNo: from, endSerialNo: Math.max(r.endSerial, from) };
  } else {
    const newest = r.cursor.time && r.cursor.time < o.deviceNow.wallClock ? r.cursor.time : o.deviceNow.wallClock;
    const start = r.cursor.time ? wallClockMinus(newest, o.overlapMinutes) : EARLIEST;
    q = { major: 5, minor: 0, startTime: isoAt(start, o.deviceNow.offset), endTime: isoAt(LATEST, o.deviceNow.offset) };
  }
  const latest = latestPlausible(o.deviceNow);
  const batch = new Batch(mono, o.commitRows ?? COMMIT_ROWS);
  const guard = new SerialGuard(r.cursor.serialNo, r.cursor.at);
  let ordered = true;
  /** Where the cursor may go once the serial numbers went out of order: the end of the in-order part. */
  let inOrder: EventCursor = r.cursor;
  let first = true;
  const rowsBefore = r.rows;
  let lastSerial = -1;
  let newest = r.cursor.time;
  const implausible = (what: string) => {
    r.implausible++;
    r.implausibleExample ??= what;
    if (r.implausible <= 5)
      o.log.warn({ event: what }, 'implausible event: read, but the read position stays below it');
  };
  /** Commits the batch; the cursor moves too when the events so far are in order or the whole search was read. */
  const flush = (complete: boolean) => {
    const moves = ordered || complete;
    const clean: EventCursor = {};
    const serialNo = moves ? guard.good : inOrder.serialNo;
    const time = moves ? newest : inOrder.time;
    const at = moves ? guard.goodAt : inOrder.at;
    if (serialNo !== undefined && serialNo > 0) clean.serialNo = serialNo;
    if (time !== undefined) clean.time = time;
    if (clean.serialNo !== undefined && at !== undefined) clean.at = at;
    const changed = formatCursor(clean) !== formatCursor(r.cursor);
    if (batch.punches.length === 0 && !changed) return;
    const res = o.commit(batch.punches, clean);
    r.added += res.added;
    r.duplicates += res.duplicates;
    r.quarantined += res.quarantined;
    r.cursor = clean;
    batch.punches = [];
    batch.rows = 0;
    batch.lastCommit = mono();
  };
  try {
    for await (const page of o.client.eventPages(q, o.signal)) {
      r.pages++;
      for (const row of page.rows) {
        const e = fromSearchRow(row);
        const wall = splitIsoTime(e.time)?.wallClock;
        if (mode === 'serial') {
          if (e.serialNo === undefined) throw new SerialFilterIgnored('the events carry no serialNo');
          const isFirst = first;
          first = false;
          if (isFirst && e.serialNo === anchor) {
            // Read already: only its time is looked at (an older cursor without one takes it now).
            const at = eventAt(e.time, wall);
            if (guard.goodAt === undefined) guard.goodAt = at;
            else if (guard.goodAt !== at) {
              return {
                restarted: `the device's event numbers started again (its log was cleared or reset: event ${anchor} was of ${guard.goodAt}, now of ${at}): reading it from the start`,
              };
            }
            found = { held: true };
            continue;
          }
          if (e.serialNo < begin) {
            throw new SerialFilterIgnored(`asked for serialNo >= ${anchor ?? begin}, the device sent ${e.serialNo}`);
          }
        }
        r.rows++;
        batch.rows++;
        const odd: string[] = [];
        if (e.serialNo !== undefined) {
          if (e.serialNo < lastSerial && ordered) {
            ordered = false;
            inOrder = { serialNo: guard.good, time: newest, at: guard.goodAt };
          }
          lastSerial = e.serialNo;
          if (guard.take(e.serialNo, eventAt(e.time, wall))) odd.push('numbered far beyond the events before it');
        }
        if (wall !== undefined && wall > latest)
          odd.push(`dated after the terminal's own clock (${o.deviceNow.wallClock})`);
        else if (wall && (newest === undefined || wall > newest)) newest = wall;
        if (odd.length)
          implausible(`event ${e.serialNo ?? '?'} of ${wall ?? String(e.time).slice(0, 40)}: ${odd.join(' and ')}`);
        const c = classify(e, o.terminal, o.device, o.minors);
        if (c.kind === 'other') o.unknownMinors?.note(e, o.log);
        if (unlistedPass(e, o.minors)) {
          r.unlisted ??= {};
          r.unlisted[e.minor] = (r.unlisted[e.minor] ?? 0) + 1;
        }
        if (c.kind === 'punch') {
          r.passes++;
          batch.punches.push(c.punch);
        } else if (c.kind === 'malformed') {
          r.malformed++;
          if (r.malformed <= 5) o.log.warn({ serialNo: e.serialNo, reason: c.reason }, 'event skipped');
        }
      }
      if (batch.due()) flush(false);
      if (page.status !== 'MORE') continue;
      if (r.pages >= limits.maxPages || mono() >= limits.deadline) {
        r.stopped = `stopped reading after ${r.pages} pages (${r.rows} events) at the poll's ${r.pages >= limits.maxPages ? 'page limit' : 'deadline'}: the rest is read at the next poll`;
        break;
      }
    }
  } catch (e) {
    const fault = deviceFault(e);
    if (!fault) throw e;
    // The event asked for again was the search's only match: firmware that ends no search (MORE
    // for ever, its last page again) said nothing new, as a search from after it would have.
    const anchorOnly = found !== undefined && r.rows === rowsBefore && e instanceof HikApiError;
    if (!anchorOnly) {
      r.stopped = fault;
      r.deviceFault = true;
    }
  }
  flush(!r.stopped);
  return found;
}
