import type { IngestResult } from '../../journal/types.js';
import { formatLogTime, type Punch } from '../../punch.js';
import type { Logger } from '../../util/logger.js';
import type { DeviceTime, EventQuery, HikvisionClient } from './client.js';
import { splitIsoTime } from './client.js';
import { HikApiError } from './errors.js';
import { classify, fromSearchRow } from './events.js';

/**
 * Reading a device's new access events from where the journal left off.
 *
 * The cursor is the newest event read (its serialNo and wall-clock time), kept per terminal and
 * device in the journal and written in the same transaction as the punches read with it: a crash
 * can leave it behind the punches (they are read again and deduplicated), never ahead of them.
 *
 * - serial mode (the normal case): `beginSerialNo = last + 1` with a large `endSerialNo`.
 * - time mode, for firmware that refuses or ignores serial filters: a `startTime` window opening
 *   `overlapMinutes` before the newest event read (or before the device's clock, if that is
 *   earlier: a clock set back is followed); what the overlap reads again is deduplicated.
 */
export interface EventCursor {
  serialNo?: number;
  /** Wall clock of the newest event read, `YYYY-MM-DD HH:mm:ss`. */
  time?: string;
}

export type FilterMode = 'serial' | 'time';

export const cursorKey = (device: string) => `events:${device}`;

export function parseCursor(s: string | undefined): EventCursor {
  if (!s) return {};
  try {
    const o = JSON.parse(s) as { serialNo?: unknown; time?: unknown };
    return {
      ...(typeof o.serialNo === 'number' && Number.isSafeInteger(o.serialNo) ? { serialNo: o.serialNo } : {}),
      ...(typeof o.time === 'string' ? { time: o.time } : {}),
    };
  } catch {
    return {};
  }
}

export const formatCursor = (c: EventCursor) => JSON.stringify(c);

/** The end of the serial range asked for (some firmware refuses beginSerialNo without one). */
export const END_SERIAL = 3_000_000_000;
const EARLIEST = '2000-01-01 00:00:00';
const LATEST = '2037-12-31 23:59:59';
/**
 * Punches are committed (with the cursor) at least every this many events read, or this long:
 * each commit is a disk sync, and a crash costs at most this much reading again.
 */
const COMMIT_ROWS = 10_000;
const COMMIT_MS = 1000;

export interface ReadOptions {
  client: HikvisionClient;
  terminal: string;
  device: string;
  minors: ReadonlySet<number>;
  cursor: EventCursor;
  mode: FilterMode;
  overlapMinutes: number;
  /** The device's clock as read at the start of this poll. */
  deviceNow: DeviceTime;
  /** Journals punches and the cursor in one transaction. */
  commit: (punches: Punch[], cursor: EventCursor) => IngestResult;
  log: Logger;
  signal?: AbortSignal;
  now?: () => number;
  /** Commit at least every this many events read (default COMMIT_ROWS). */
  commitRows?: number;
}

export interface ReadResult {
  mode: FilterMode;
  /** Set when this read found the firmware without serial filters. */
  switchedToTime?: string;
  cursor: EventCursor;
  pages: number;
  rows: number;
  passes: number;
  malformed: number;
  added: number;
  duplicates: number;
  quarantined: number;
}

/** `YYYY-MM-DD HH:mm:ss` minus `minutes`, on the calendar (no zone). */
export function wallClockMinus(wall: string, minutes: number): string {
  const [d, t] = wall.split(' ') as [string, string];
  const [y, mo, da] = d.split('-').map(Number) as [number, number, number];
  const [h, mi, s] = t.split(':').map(Number) as [number, number, number];
  const x = new Date(Date.UTC(y, mo - 1, da, h, mi, s) - minutes * 60_000);
  return formatLogTime(
    x.getUTCFullYear(),
    x.getUTCMonth() + 1,
    x.getUTCDate(),
    x.getUTCHours(),
    x.getUTCMinutes(),
    x.getUTCSeconds(),
  );
}

const isoAt = (wall: string, offset: string) => `${wall.replace(' ', 'T')}${offset}`;

/** The device ignores the serial filter: it sent events below the beginSerialNo asked for. */
class SerialFilterIgnored extends Error {}

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
  const r: ReadResult = {
    mode: o.mode,
    cursor: { ...o.cursor },
    pages: 0,
    rows: 0,
    passes: 0,
    malformed: 0,
    added: 0,
    duplicates: 0,
    quarantined: 0,
  };
  if (o.mode === 'serial') {
    try {
      await search(o, r, 'serial');
      if (r.rows === 0 && (await serialsRestarted(o, r))) {
        o.log.warn(
          { was: r.cursor.serialNo },
          "the device's event numbers started again (its log was cleared or reset): reading it from the start",
        );
        r.cursor = {};
        await search(o, r, 'serial');
      }
      return r;
    } catch (e) {
      const reason = serialFilterFailure(e, r);
      if (!reason) throw e;
      r.mode = 'time';
      r.switchedToTime = reason;
      o.log.warn(
        { reason, overlapMinutes: o.overlapMinutes },
        'the firmware does not support serial-number filters: reading events by time window instead',
      );
    }
  }
  await search(o, r, 'time');
  return r;
}

/**
 * Nothing new by serial number: is there an event newer than the newest read? Then the device
 * numbers its events from 1 again (a log cleared at the device, a reset): without this check
 * the cursor would wait above the new numbers for ever.
 */
async function serialsRestarted(o: ReadOptions, r: ReadResult): Promise<boolean> {
  const { serialNo, time } = r.cursor;
  if (serialNo === undefined || time === undefined) return false;
  const start = isoAt(wallClockMinus(time, -1 / 60), o.deviceNow.offset);
  const q: EventQuery = {
    major: 5,
    minor: 0,
    startTime: start,
    endTime: isoAt(LATEST, o.deviceNow.offset),
    maxResults: 5,
  };
  const page = await o.client.eventPage(q, `probe-${serialNo}`, 0, o.signal).catch(() => undefined);
  return (page?.rows ?? []).some((row) => {
    const e = fromSearchRow(row);
    const wall = splitIsoTime(e.time)?.wallClock;
    return e.serialNo !== undefined && e.serialNo <= serialNo && wall !== undefined && wall > time;
  });
}

/** Why a serial search shows the firmware has no serial filters, or undefined when it failed otherwise. */
function serialFilterFailure(e: unknown, r: ReadResult): string | undefined {
  if (e instanceof SerialFilterIgnored) return e.message;
  // Refused on the first page: the firmware does not know beginSerialNo/endSerialNo.
  if (e instanceof HikApiError && r.pages === 0 && (e.httpStatus === 400 || e.unsupported)) return e.message;
  return undefined;
}

async function search(o: ReadOptions, r: ReadResult, mode: FilterMode): Promise<void> {
  const now = o.now ?? Date.now;
  const begin = (r.cursor.serialNo ?? 0) + 1;
  let q: EventQuery;
  if (mode === 'serial') {
    q = { major: 5, minor: 0, beginSerialNo: begin, endSerialNo: Math.max(END_SERIAL, begin) };
  } else {
    const newest = r.cursor.time && r.cursor.time < o.deviceNow.wallClock ? r.cursor.time : o.deviceNow.wallClock;
    const start = r.cursor.time ? wallClockMinus(newest, o.overlapMinutes) : EARLIEST;
    q = { major: 5, minor: 0, startTime: isoAt(start, o.deviceNow.offset), endTime: isoAt(LATEST, o.deviceNow.offset) };
  }
  const batch = new Batch(now, o.commitRows ?? COMMIT_ROWS);
  let ordered = true;
  let lastSerial = -1;
  let maxSerial = r.cursor.serialNo ?? 0;
  let newest = r.cursor.time;
  const flush = (final: boolean) => {
    // Out of order serial numbers: the cursor moves only once the whole search is read.
    const cursor = ordered || final ? { serialNo: maxSerial || undefined, time: newest } : r.cursor;
    const clean: { serialNo?: number; time?: string } = {};
    if (cursor.serialNo !== undefined) clean.serialNo = cursor.serialNo;
    if (cursor.time !== undefined) clean.time = cursor.time;
    const changed = formatCursor(clean) !== formatCursor(r.cursor);
    if (batch.punches.length === 0 && !changed) return;
    const res = o.commit(batch.punches, clean);
    r.added += res.added;
    r.duplicates += res.duplicates;
    r.quarantined += res.quarantined;
    r.cursor = clean;
    batch.punches = [];
    batch.rows = 0;
    batch.lastCommit = now();
  };
  for await (const page of o.client.eventPages(q, o.signal)) {
    r.pages++;
    for (const row of page.rows) {
      const e = fromSearchRow(row);
      if (mode === 'serial') {
        if (e.serialNo === undefined) throw new SerialFilterIgnored('the events carry no serialNo');
        if (e.serialNo < begin) {
          throw new SerialFilterIgnored(`asked for serialNo >= ${begin}, the device sent ${e.serialNo}`);
        }
      }
      r.rows++;
      batch.rows++;
      if (e.serialNo !== undefined) {
        if (e.serialNo < lastSerial) ordered = false;
        lastSerial = e.serialNo;
        if (e.serialNo > maxSerial) maxSerial = e.serialNo;
      }
      const wall = splitIsoTime(e.time)?.wallClock;
      if (wall && (newest === undefined || wall > newest)) newest = wall;
      const c = classify(e, o.terminal, o.device, o.minors);
      if (c.kind === 'punch') {
        r.passes++;
        batch.punches.push(c.punch);
      } else if (c.kind === 'malformed') {
        r.malformed++;
        if (r.malformed <= 5) o.log.warn({ serialNo: e.serialNo, reason: c.reason }, 'event skipped');
      }
    }
    if (batch.due()) flush(false);
  }
  flush(true);
}
