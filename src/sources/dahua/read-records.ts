import type { IngestResult } from '../../journal/types.js';
import type { Punch } from '../../punch.js';
import type { Logger } from '../../util/logger.js';
import type { DahuaClient, TimeCondition } from './client.js';
import { DahuaApiError } from './errors.js';
import { COMMIT_ROWS, FUTURE_SECONDS, MAX_POLL_PAGES, monotonicNow, POLL_DEADLINE_MS } from './limits.js';
import { classify } from './records.js';

/**
 * Reading a Dahua terminal's new access records from where the journal left off.
 *
 * The cursor is the newest record read: its RecNo and CreateTime, with the number of records the
 * device held then (getQuerySize). It is kept per terminal and device in the journal and written
 * in the same transaction as the punches read with it: a crash leaves it behind the punches (read
 * again, deduplicated), never ahead. Devices search by time only, oldest first: each page asks
 * from the cursor's second on, and the records of that second already read (RecNo at or below the
 * cursor's) are passed over.
 *
 * One bad record cannot blind the source: a record dated more than a day after the device's own
 * clock is journalled (the journal quarantines it) but never moves the cursor. A log renumbered
 * or cleared (a reset, a restart that numbers from 1 again, a clock set back): a poll that finds
 * nothing new while the device holds another number of records than it did reads the whole log
 * again, deduplicated, and says so in the status.
 */
export interface RecordCursor {
  recNo?: number;
  time?: number;
  total?: number;
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
  commit: (punches: Punch[], cursor: RecordCursor) => IngestResult;
  log: Logger;
  signal?: AbortSignal;
  maxPages?: number;
  deadlineMs?: number;
  commitRows?: number;
}

export interface ReadResult {
  cursor: RecordCursor;
  form: TimeCondition;
  pages: number;
  rows: number;
  malformed: number;
  added: number;
  duplicates: number;
  quarantined: number;
  implausible: number;
  implausibleExample?: string;
  /** Reading stopped before the device's answer ended, in words (what was read is journalled). */
  stopped?: string;
  deviceFault?: boolean;
  /** The log was found renumbered or cleared and read again from its start, in words. */
  cursorReset?: string;
}

/** The largest page firmware gives (a larger count is cut to it). */
const MAX_COUNT = 1024;

export async function readRecords(o: ReadOptions): Promise<ReadResult> {
  const r: ReadResult = {
    cursor: { ...o.cursor },
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
  const before = r.rows;
  await pages(o, r, deadline, maxPages, latest);
  if (!r.stopped && r.rows === before && r.cursor.time !== undefined) {
    const total = await o.client.recordCount(o.signal).catch(() => undefined);
    if (total !== undefined && r.cursor.total !== undefined && total !== r.cursor.total) {
      r.cursorReset = `its log holds ${total} records where it held ${r.cursor.total}, and none is newer than the last one read: renumbered or cleared (a reset, or its clock set back); read again from the start (nothing lost)`;
      o.log.warn(
        { was: r.cursor, total },
        'the terminal log was renumbered or cleared: reading it again from the start',
      );
      r.cursor = {};
      await pages(o, r, deadline, maxPages, latest);
    }
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

function tally(r: ReadResult, i: IngestResult): void {
  r.added += i.added;
  r.duplicates += i.duplicates;
  r.quarantined += i.quarantined;
}

async function pages(o: ReadOptions, r: ReadResult, deadline: number, maxPages: number, latest: number): Promise<void> {
  let count = Math.min(o.pageSize, MAX_COUNT);
  let start = r.cursor.time ?? 0;
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
  try {
    for (;;) {
      if (r.pages >= maxPages || monotonicNow() > deadline) {
        r.stopped = `it still had records after ${r.pages} pages (${r.rows} records) in one poll`;
        return;
      }
      let page;
      try {
        page = await o.client.recordPage(start, count, r.form, o.signal);
      } catch (e) {
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
      for (const rec of page.records) {
        const c = r.cursor;
        if (
          rec.createTime !== undefined &&
          rec.createTime === c.time &&
          rec.recNo !== undefined &&
          c.recNo !== undefined &&
          rec.recNo <= c.recNo
        )
          continue; // this second's records read before
        if (rec.createTime !== undefined && c.time !== undefined && rec.createTime < c.time) continue; // before the window
        r.rows++;
        batchRows++;
        const k = classify(rec, {
          terminal: o.terminal,
          device: o.device,
          recordClock: o.recordClock,
          timezone: o.timezone,
        });
        if (k.kind === 'punch') batch.push(k.punch);
        else if (k.kind === 'malformed') {
          r.malformed++;
          o.log.warn({ recNo: rec.recNo }, k.reason);
        }
        if (rec.createTime === undefined || rec.createTime > latest) {
          r.implausible++;
          r.implausibleExample ??= `record ${rec.recNo ?? '?'} dated ${rec.createTime !== undefined ? (k.kind === 'punch' ? k.punch.logTime : rec.createTime) : JSON.stringify(rec.rawTime.slice(0, 40))}`;
          continue; // read, never the cursor's
        }
        r.cursor = { ...c, time: rec.createTime, ...(rec.recNo !== undefined ? { recNo: rec.recNo } : {}) };
      }
      if (batchRows >= commitRows || monotonicNow() - lastCommit >= 1000) flush();
      // Firmware caps pages silently (found=64 for count=100): the log ends only at a page that
      // brings nothing past the second it started from.
      if (page.records.length === 0) break;
      const next = r.cursor.time ?? start;
      if (next <= start) {
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
      start = next;
    }
  } finally {
    flush();
  }
}
