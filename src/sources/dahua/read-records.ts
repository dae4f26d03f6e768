import type { IngestResult } from '../../journal/types.js';
import type { Punch } from '../../punch.js';
import type { Logger } from '../../util/logger.js';
import type { ReadCounts } from '../http-poll.js';
import { LATEST_SECONDS, type DahuaClient, type RecordPage, type TimeCondition } from './client.js';
import { DahuaApiError } from './errors.js';
import { COMMIT_ROWS, FUTURE_SECONDS, MAX_POLL_PAGES, monotonicNow, POLL_DEADLINE_MS } from './limits.js';
import { classify, type DahuaRecord } from './records.js';

/**
 * Reading a Dahua terminal's new access records from where the journal left off.
 *
 * The cursor is the newest record read: its RecNo and CreateTime, with the number of records the
 * device held then (getQuerySize). It is kept per terminal and device in the journal and written
 * in the same transaction as the punches read with it: a crash leaves it behind the punches (read
 * again, deduplicated), never ahead. Devices search by time only, oldest first: each page asks
 * from the cursor's second on; the records of that second are read again and deduplicated by the
 * journal (a device may number them anew, so their RecNo cannot say which were read).
 *
 * One bad record cannot blind the source: a record dated more than a day after the device's own
 * clock is journalled (the journal quarantines it) but never moves the cursor. A log renumbered
 * or cleared: a device holding fewer records than at the last poll (cleared, reset), or a record
 * at or after the cursor numbered below it (a restart that numbers from 1 again), has the whole
 * log read again, deduplicated, and the status says so. A device clock behind the cursor (set
 * back) has the window open before the device's clock by the time since the log was last read
 * (see behindStart).
 */
export interface RecordCursor {
  recNo?: number;
  time?: number;
  total?: number;
  /** The box's clock (ms) at the start of the poll that wrote this cursor: how long ago the log was read. */
  readAt?: number;
}

export const cursorKey = (device: string) => `records:${device}`;

export function parseCursor(s: string | undefined): RecordCursor {
  if (!s) return {};
  try {
    const o = JSON.parse(s) as Record<string, unknown>;
    const n = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
    const c: RecordCursor = {};
    if (n(o.recNo) !== undefined) c.recNo = n(o.recNo);
    if (n(o.time) !== undefined) c.time = n(o.time);
    if (n(o.total) !== undefined) c.total = n(o.total);
    if (n(o.readAt) !== undefined) c.readAt = n(o.readAt);
    return c;
  } catch {
    return {};
  }
}

export interface ReadOptions {
  client: DahuaClient;
  terminal: string;
  device: string;
  recordClock: 'local' | 'utc';
  timezone?: string;
  cursor: RecordCursor;
  form: TimeCondition;
  pageSize: number;
  /** The device's clock now, as seconds in the encoding of its records. */
  deviceNowSeconds: number;
  /** The box's clock now (ms): with the cursor's readAt, how long since the log was last read. */
  boxNowMs: number;
  commit: (punches: Punch[], cursor: RecordCursor) => IngestResult;
  log: Logger;
  signal?: AbortSignal;
  maxPages?: number;
  deadlineMs?: number;
  commitRows?: number;
}

export interface ReadResult extends ReadCounts {
  cursor: RecordCursor;
  form: TimeCondition;
  /** The log was found renumbered or cleared and read again from its start, in words. */
  cursorReset?: string;
  /** A record at or after the cursor numbered below it was met. */
  renumbered?: boolean;
  /** The records without a user or a card counted this poll (noteMalformed), and the first of them. */
  malformedSeen?: Set<string>;
  malformedExample?: string;
}

/** How far before a device clock that is behind the cursor the window opens. */
const OVERLAP_SECONDS = 600;

/**
 * Where the window opens when the device's clock is behind the cursor (set back): at the device's
 * clock less the time since the log was last read (box clock) and OVERLAP_SECONDS. Every record
 * stored since then is dated after that by the device's clock, whenever it was set back and
 * however long the poll interval or an outage was (a window of only OVERLAP_SECONDS before the
 * clock lost the records of a longer gap: found by an adversarial trial). A cursor that does not
 * say when it was read (written by an older punchgate) reads the log from its start, once
 * (deduplicated). A box clock that went back counts as no time.
 */
function behindStart(o: ReadOptions): number {
  if (o.cursor.readAt === undefined) return 0;
  const sinceRead = Math.max(0, Math.ceil((o.boxNowMs - o.cursor.readAt) / 1000));
  return Math.max(0, o.deviceNowSeconds - sinceRead - OVERLAP_SECONDS);
}
/** The largest page firmware gives (a larger count is cut to it). */
const MAX_COUNT = 1024;

export async function readRecords(o: ReadOptions): Promise<ReadResult> {
  const r: ReadResult = {
    // Written with the punches this poll reads: the log was read as of now.
    cursor: { ...o.cursor, readAt: o.boxNowMs },
    form: o.form,
    pages: 0,
    rows: 0,
    malformed: 0,
    added: 0,
    duplicates: 0,
    quarantined: 0,
    implausible: 0,
  };
  const deadline = monotonicNow() + (o.deadlineMs ?? POLL_DEADLINE_MS);
  const maxPages = o.maxPages ?? MAX_POLL_PAGES;
  const latest = o.deviceNowSeconds + FUTURE_SECONDS;
  // A cursor dated after the device's clock (left by a bad record or a clock set back) finds nothing.
  if (r.cursor.time !== undefined && r.cursor.time > latest) {
    r.cursorReset = `its read position was dated after the terminal's clock: its log is read again from the start (nothing lost)`;
    r.cursor = {};
  }
  // Only worth asking when there is a count to compare it with (not on the first read).
  const held = r.cursor.total !== undefined ? await o.client.recordCount(o.signal).catch(() => undefined) : undefined;
  if (!r.cursorReset && held !== undefined && r.cursor.total !== undefined && held < r.cursor.total) {
    r.cursorReset = `its log holds ${held} records where it held ${r.cursor.total}: cleared or reset; read again from the start (nothing lost)`;
    r.cursor = {};
  }
  if (r.cursorReset)
    o.log.warn({ was: o.cursor, held }, 'the terminal log was renumbered or cleared: reading it again from the start');
  try {
    await pages(o, r, deadline, maxPages, latest);
    if (!r.stopped && r.renumbered && !r.cursorReset) {
      r.cursorReset = `it numbers its records from 1 again (a restart or a reset): its log is read again from the start (nothing lost)`;
      o.log.warn({ was: o.cursor }, 'the terminal numbers its records anew: reading its log again from the start');
      r.cursor = {};
      await pages(o, r, deadline, maxPages, latest);
    }
  } finally {
    sayMalformed(o, r);
  }
  if (!r.stopped) {
    // What the device holds now, beside the cursor: the next poll compares with it.
    const total = await o.client.recordCount(o.signal).catch(() => undefined);
    if (total !== undefined && total !== r.cursor.total) {
      r.cursor = { ...r.cursor, total };
      tally(r, o.commit([], r.cursor));
    }
  }
  return r;
}

/**
 * A record the door accepted with neither UserID nor CardNo: no punch (nobody to file it under).
 * A door opened by its exit button or remotely (from the platform or an app) is stored so: Dahua's
 * NetSDK lists REMOTE and BUTTON among the opening methods of the access record set
 * (NET_ACCESS_DOOROPEN_METHOD, the emMethod of NET_RECORDSET_ACCESS_CTL_CARDREC). Counted once
 * each: every poll reads the cursor's own second again, and every page the second the one before
 * ended on, so a record read by an earlier poll (or page) is not counted again; said in one line
 * per poll (sayMalformed), never a line per record (a first read of a long log) nor the same
 * record at every poll (a line a minute while the door saw nothing else).
 */
function noteMalformed(o: ReadOptions, r: ReadResult, rec: DahuaRecord): void {
  const from = o.cursor;
  const t = rec.createTime;
  const readBefore =
    !r.cursorReset &&
    from.time !== undefined &&
    t !== undefined &&
    (t < from.time ||
      (t === from.time && rec.recNo !== undefined && from.recNo !== undefined && rec.recNo <= from.recNo));
  const key = `${rec.recNo ?? ''} ${rec.rawTime}`;
  if (readBefore || r.malformedSeen?.has(key)) return;
  (r.malformedSeen ??= new Set()).add(key);
  r.malformed++;
  r.malformedExample ??= `record ${rec.recNo ?? '?'}${t !== undefined ? ` of ${rec.rawTime}` : ''}`;
}

/** The poll's records without a user or a card (noteMalformed), in one line. */
function sayMalformed(o: ReadOptions, r: ReadResult): void {
  if (r.malformed === 0) return;
  o.log.warn(
    { records: r.malformed, first: r.malformedExample },
    `${r.malformed} ${r.malformed === 1 ? 'record' : 'records'} the door accepted without a user or a card (the first: ${r.malformedExample}): not punches; a door opened by its exit button or remotely is stored so`,
  );
}

function tally(r: ReadResult, i: IngestResult): void {
  r.added += i.added;
  r.duplicates += i.duplicates;
  r.quarantined += i.quarantined;
}

async function pages(o: ReadOptions, r: ReadResult, deadline: number, maxPages: number, latest: number): Promise<void> {
  let count = Math.min(o.pageSize, MAX_COUNT);
  // A device clock behind the newest record read (set back): its new records are dated before the
  // cursor, so the window opens before its clock.
  // The window closes shortly after the device's clock then: the records read before the clock
  // went back are not in it, so the pages move through the new ones (devices answer in the order
  // they stored the records, not by time).
  const cursorTime = r.cursor.time;
  const behind = cursorTime !== undefined && cursorTime > o.deviceNowSeconds;
  let start = cursorTime === undefined ? 0 : behind ? behindStart(o) : cursorTime;
  const end = behind ? o.deviceNowSeconds + OVERLAP_SECONDS : LATEST_SECONDS;
  // Where the pages have got to: the newest plausible second in the window read so far.
  const inWindow = Math.min(latest, end);
  let batch: Punch[] = [];
  let batchRows = 0;
  let lastCommit = monotonicNow();
  const commitRows = o.commitRows ?? COMMIT_ROWS;
  const flush = () => {
    if (batchRows === 0) return;
    tally(r, o.commit(batch, r.cursor));
    batch = [];
    batchRows = 0;
    lastCommit = monotonicNow();
  };
  let switched = false;
  let next: { start: number; count: number; form: TimeCondition; page: Promise<RecordPage> } | undefined;
  try {
    for (;;) {
      if (r.pages >= maxPages || monotonicNow() > deadline) {
        r.stopped = `it still had records after ${r.pages} pages (${r.rows} records) in one poll`;
        return;
      }
      let page: RecordPage;
      try {
        page = await (next?.start === start && next.count === count && next.form === r.form
          ? next.page
          : o.client.recordPage(start, count, r.form, o.signal, end, o.recordClock, o.timezone));
        next = undefined;
      } catch (e) {
        next = undefined;
        // Firmware that takes the window only as condition.StartTime/EndTime answers the plain form with 400.
        if (!switched && r.form === 'plain' && e instanceof DahuaApiError && e.unsupported) {
          switched = true;
          r.form = 'condition';
          o.log.warn(
            { err: e.message },
            'the firmware refuses StartTime/EndTime: searching with condition.StartTime/EndTime',
          );
          continue;
        }
        throw e;
      }
      r.pages++;
      // Firmware that ignores the plain window answers from its oldest record: try the other form once.
      if (
        !switched &&
        r.form === 'plain' &&
        start > 0 &&
        page.records.some((x) => x.createTime !== undefined && x.createTime < start)
      ) {
        switched = true;
        r.form = 'condition';
        o.log.warn('the firmware ignores StartTime: searching with condition.StartTime/EndTime');
        continue;
      }
      // The next page is asked for before this one is journalled, so that the device works on it
      // meanwhile (one connection: the requests still go one after the other). It starts where
      // this one moves the cursor to: its newest plausible record's second.
      const ahead = nextStart(page, start, inWindow);
      if (page.records.length > 0 && ahead > start && r.pages < maxPages) {
        const p = o.client.recordPage(ahead, count, r.form, o.signal, end, o.recordClock, o.timezone);
        p.catch(() => undefined); // awaited at the next turn; a poll that stops here must not leave it unhandled
        next = { start: ahead, count, form: r.form, page: p };
      }
      for (const rec of page.records) {
        const c = r.cursor;
        r.rows++;
        batchRows++;
        const k = classify(rec, {
          terminal: o.terminal,
          device: o.device,
          recordClock: o.recordClock,
          timezone: o.timezone,
        });
        if (k.kind === 'punch') batch.push(k.punch);
        else if (k.kind === 'malformed') noteMalformed(o, r, rec);
        if (rec.createTime === undefined || rec.createTime > latest) {
          r.implausible++;
          r.implausibleExample ??= `record ${rec.recNo ?? '?'} dated ${k.kind === 'punch' ? k.punch.logTime : JSON.stringify(rec.rawTime.slice(0, 40))}`;
          continue; // read, never the cursor's
        }
        if (c.time !== undefined && rec.createTime < c.time) continue; // older than the newest read
        // Later than the newest read yet numbered below it (the cursor's own second is read again: its records may come in any order).
        if (
          rec.recNo !== undefined &&
          c.recNo !== undefined &&
          c.time !== undefined &&
          rec.createTime > c.time &&
          rec.recNo < c.recNo
        )
          r.renumbered = true;
        r.cursor = { ...c, time: rec.createTime, ...(rec.recNo !== undefined ? { recNo: rec.recNo } : {}) };
      }
      if (batchRows >= commitRows || monotonicNow() - lastCommit >= 1000) flush();
      // Firmware caps pages silently (found=64 for count=100): the log ends only at a page that
      // brings nothing past the second it started from.
      if (page.records.length === 0) break;
      const moved = ahead;
      if (moved <= start) {
        if (page.records.length < count) break;
        // A full page within one second (or of records that cannot move the cursor): ask for more at once.
        if (count < MAX_COUNT) {
          count = MAX_COUNT;
          continue;
        }
        r.stopped = `the terminal answers a full page of ${count} records that does not move on (more records in one second than a page holds, or it ignores the time window)`;
        r.deviceFault = true;
        return;
      }
      start = moved;
    }
  } finally {
    flush();
  }
}

/** Where the cursor stands after `page`: its newest plausible record's second, never before `from`. */
function nextStart(page: RecordPage, from: number, latest: number): number {
  let t = from;
  for (const rec of page.records)
    if (rec.createTime !== undefined && rec.createTime <= latest && rec.createTime > t) t = rec.createTime;
  return t;
}
