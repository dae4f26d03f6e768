import { setImmediate as nextCheckPhase } from 'node:timers/promises';
import type { IngestResult } from '../../journal/types.js';
import { isLogTime, shiftWallClock, wallClockDiffSeconds, type Punch } from '../../punch.js';
import type { Logger } from '../../util/logger.js';
import type { BioPage, BioTimeClient } from './client.js';
import type { SeenDevice } from './devices.js';
import { namesOf, rowFacts, rowId, uploadOf, type RowFacts } from './rows.js';

/**
 * Reading a BioTime server's new transactions from where the journal left off.
 *
 * The cursor is the newest transaction id read (and the newest plausible punch_time), kept in the
 * journal and written in the same transaction as the punches read with it: a crash leaves it
 * behind the punches (read again, deduplicated), never ahead of them.
 *
 * - id mode (the normal case): `ordering=id&id__gt=<cursor less idOverlap>`, then always the
 *   first page of what is newer than the last id read (so rows arriving while we read shift
 *   nothing). The window below the cursor catches an id that shows after higher ones.
 * - time mode, for a server that ignores the id filter or the ordering (its rows come back out of
 *   order or at or below the cursor): `start_time` (the punch_time filter) from `overlapMinutes`
 *   before the newest punch read, every page; what the overlap reads again is deduplicated.
 *
 * A bad row cannot blind the source: a row without an id is journalled but never the cursor's;
 * an id far beyond the ones before it is journalled but moves the cursor only when rows after it
 * carry on from it; a punch_time in the future never moves the time window. And a cursor that
 * finds nothing while the server's newest id is below it (the table was cleared, or restored and
 * renumbered) is noticed: the table is read again from its first id (deduplicated: nothing
 * doubles), and the cursor follows the new ids. A renumbered table whose new ids passed the cursor
 * before the poll is noticed by the window, which reads the cursor's own id again: another
 * transaction under it (BioCursor.at) sends the read back to the table's first id too.
 */
export interface BioCursor {
  id?: number;
  /**
   * What the transaction numbered `id` says (its punch_time and emp_code): id mode asks for that
   * id again at each poll, and another transaction under it says the table was renumbered (its
   * new ids may have passed the cursor already: those up to it would be taken as read).
   */
  at?: string;
  /**
   * What the last transactions read in id mode say, by id (ascending, at most RECENT_KEPT): when
   * the one at the cursor is gone and the server's newest is one of these, saying the same, the
   * transactions after it were deleted there (an admin deleting test or wrong punches): the table
   * was not renumbered, and nothing needs reading again (see checkRenumbered).
   */
  recent?: [number, string][];
  /** The newest plausible punch_time read (`YYYY-MM-DD HH:mm:ss`). */
  time?: string;
  /** Re-reading after a renumbered table: only transactions punched from then (start_time). */
  from?: string;
  /**
   * Time mode: a window read only in part (the poll stopped at a bound, a page failed), and the
   * next page of it to read (`start` '' for a window without start_time). A server that lists
   * newest first has moved `time` to the top of the table at the first page: the window's older
   * pages are read by the next polls from here, not left below the next window.
   */
  resume?: { start: string; next: number; size: number };
}

export type ReadMode = 'id' | 'time';

export const CURSOR_KEY = 'cursor';

export function parseCursor(s: string | undefined): BioCursor {
  if (!s) return {};
  try {
    const o = JSON.parse(s) as Record<string, unknown>;
    const wall = (v: unknown) => (typeof v === 'string' && isLogTime(v) ? v : undefined);
    const id = typeof o.id === 'number' && Number.isSafeInteger(o.id) && o.id >= 0 ? o.id : undefined;
    const time = wall(o.time);
    const from = wall(o.from);
    const at = typeof o.at === 'string' ? o.at.slice(0, AT_MAX) : undefined;
    const recent = Array.isArray(o.recent)
      ? o.recent
          .filter(
            (e): e is [number, string] =>
              Array.isArray(e) &&
              typeof e[0] === 'number' &&
              Number.isSafeInteger(e[0]) &&
              e[0] > 0 &&
              typeof e[1] === 'string',
          )
          .slice(-RECENT_KEPT)
          .map(([i, a]): [number, string] => [i, a.slice(0, AT_MAX)])
      : [];
    const rs = o.resume as Record<string, unknown> | null | undefined;
    const resume =
      typeof rs === 'object' &&
      rs !== null &&
      (rs.start === '' || wall(rs.start)) &&
      typeof rs.next === 'number' &&
      Number.isSafeInteger(rs.next) &&
      rs.next >= 1 &&
      typeof rs.size === 'number' &&
      Number.isSafeInteger(rs.size)
        ? { start: rs.start as string, next: rs.next, size: rs.size }
        : undefined;
    return {
      ...(id !== undefined ? { id } : {}),
      ...(at !== undefined && id !== undefined ? { at } : {}),
      ...(recent.length > 0 && id !== undefined ? { recent } : {}),
      ...(time ? { time } : {}),
      ...(from ? { from } : {}),
      ...(resume ? { resume } : {}),
    };
  } catch {
    return {};
  }
}

export const formatCursor = (c: BioCursor): string => JSON.stringify(c);

/** A bound on BioCursor.at: a hostile row's long fields are not kept in the journal's state. */
const AT_MAX = 128;
/** BioCursor.at of a transaction: its punch_time and employee code (bounded). */
const atOf = (f: RowFacts): string => `${f.punch.logTime} ${f.punch.biometricCode}`.slice(0, AT_MAX);
/** Transactions BioCursor.recent remembers: an admin deleting more of the newest at once is taken for a renumbering (read again, nothing doubled). */
const RECENT_KEPT = 16;

/** BioCursor.recent with the transactions of `facts` up to id `upTo` (ids above the ones it holds). */
function withRecent(recent: BioCursor['recent'], facts: readonly RowFacts[], upTo: number): [number, string][] {
  const out = [...(recent ?? [])];
  for (const f of facts)
    if (f.id !== undefined && f.id <= upTo && (out.length === 0 || f.id > out[out.length - 1]![0]))
      out.push([f.id, atOf(f)]);
  return out.slice(-RECENT_KEPT);
}

/**
 * Ids below the cursor read again at each poll in id mode, at most: BioTime gives ids when an
 * upload begins and shows a row when it commits, so a terminal's upload that commits after
 * another's shows a lower id after higher ones were read. Bounded by the page size, so the
 * window costs at most one page more per poll; what it reads again is not doubled.
 */
export const ID_OVERLAP = 200;
/** One less than a page: a poll that finds nothing new asks one short page, and is done. */
export const idOverlap = (pageSize: number): number => Math.max(1, Math.min(pageSize - 1, ID_OVERLAP));

/** An id more than this above the cursor is implausible unless JUMP_CONFIRMED rows carry on from it. */
export const MAX_ID_STEP = 1_000_000;
const JUMP_CONFIRMED = 3;

export interface ReadOptions {
  client: BioTimeClient;
  source: string;
  pageSize: number;
  mode: ReadMode;
  cursor: BioCursor;
  overlapMinutes: number;
  /** The box's wall clock in the server's zone now (punch times after it + 1 day move nothing). */
  nowWall: string;
  /** Which rows are read (the config's `terminals` and `areas`); the cursor passes the others. */
  accept: (f: RowFacts) => boolean;
  /** Journals punches and the cursor in one transaction. */
  commit: (punches: Punch[], cursor: BioCursor) => IngestResult;
  log: Logger;
  signal?: AbortSignal;
  limits: { maxPages: number; deadline: number; monotonic: () => number };
  /**
   * The transactions of the id window (idOverlap) this process journalled already (seenKey), kept
   * by the poller between polls: read again, they are not journalled again.
   */
  seen?: Set<string>;
  /** Journal at least every this many rows (default COMMIT_ROWS). */
  commitRows?: number;
}

export interface ReadResult {
  mode: ReadMode;
  cursor: BioCursor;
  pages: number;
  rows: number;
  skipped: number;
  added: number;
  duplicates: number;
  quarantined: number;
  refused: number;
  implausible: number;
  implausibleExample?: string;
  /** List items that were no transaction (null, a string): left out, said by the poller. */
  notRows: number;
  /** Reading stopped at a bound (pages, deadline): the rest is read by the next poll. */
  stopped?: string;
  /** Set when the server's newest id was found below the cursor (in words). */
  renumbered?: string;
  switchedToTime?: string;
  devices: Map<string, Omit<SeenDevice, 'seenAt'>>;
  /** The largest delay upload_time - punch_time (s) of a transaction uploaded lately, and its device. */
  lag?: { seconds: number; serial: string; alias: string };
}

const LAG_RECENT_SECONDS = 86_400;
/** Rows per commit at least (a full page of the largest size), or COMMIT_MS. */
const COMMIT_ROWS = 1000;
const COMMIT_MS = 1000;

export async function readTransactions(o: ReadOptions): Promise<ReadResult> {
  const r: ReadResult = {
    mode: o.mode,
    cursor: { ...o.cursor },
    pages: 0,
    rows: 0,
    skipped: 0,
    added: 0,
    duplicates: 0,
    quarantined: 0,
    refused: 0,
    implausible: 0,
    notRows: 0,
    devices: new Map(),
  };
  const latestPlausible = shiftWallClock(o.nowWall, 86_400);
  const recentUploads = shiftWallClock(o.nowWall, -LAG_RECENT_SECONDS);
  const fetchPage = async (q: URLSearchParams): Promise<BioPage | undefined> => {
    if (r.pages >= o.limits.maxPages) {
      r.stopped = `${r.pages} pages read in one poll`;
      return undefined;
    }
    if (o.limits.monotonic() > o.limits.deadline) {
      r.stopped = 'the poll deadline passed';
      return undefined;
    }
    r.pages++;
    const page = await o.client.transactions(q, o.signal);
    r.notRows += page.notRows;
    return page;
  };

  // Pages are journalled (with the cursor after the last of them) once COMMIT_ROWS rows or
  // COMMIT_MS have gathered: a page of 1,000 is one commit (one disk sync), made while the next
  // page is on its way (see `next` below), so reading and journalling overlap; small pages are
  // gathered so that a slow trickle of them does not cost a sync each.
  let pending: Punch[] = [];
  let pendingCursor: BioCursor | undefined;
  let lastCommit = o.limits.monotonic();
  const flush = (): void => {
    if (!pendingCursor) return;
    const punches = pending;
    const cursor = pendingCursor;
    pending = [];
    pendingCursor = undefined;
    lastCommit = o.limits.monotonic();
    // One device after the other: the journal learns each terminal's device once per write.
    punches.sort((a, b) => (a.device! < b.device! ? -1 : a.device! > b.device! ? 1 : 0));
    const res = o.commit(punches, cursor);
    r.added += res.added;
    r.duplicates += res.duplicates;
    r.quarantined += res.quarantined;
    r.refused += res.refused ?? 0;
    // Per device, what was new to the journal: a window read again (after a restart, a reload, in
    // time mode at every poll) is read, not counted twice.
    for (const [key, n] of res.newByDevice ?? []) {
      let d = r.devices.get(key);
      if (!d) r.devices.set(key, (d = { serial: key, alias: '', area: '', lastPunch: '', read: 0 }));
      d.read += n;
    }
  };

  /** Takes one page's rows (journalled at the next flush, with the cursor after them). */
  const take = (rows: readonly RowFacts[], cursor: BioCursor): void => {
    const punches = pending;
    // Per device, its last row of this page: its names and its upload delay are read from that one.
    const lastOf = new Map<string, RowFacts>();
    for (const f of rows) {
      r.rows++;
      if (!o.accept(f)) {
        r.skipped++;
        continue;
      }
      punches.push(f.punch);
      const t = f.punch.logTime;
      const plausible = isLogTime(t) && t <= latestPlausible;
      if (plausible && (!cursor.time || t > cursor.time)) cursor.time = t;
      // The device as the journal keeps it (a serial that breaks the code rule as its stand-in).
      const key = f.punch.device!;
      let d = r.devices.get(key);
      if (!d) r.devices.set(key, (d = { serial: key, alias: '', area: '', lastPunch: '', read: 0 }));
      if (plausible && t > d.lastPunch) d.lastPunch = t;
      lastOf.set(key, f);
    }
    for (const [key, f] of lastOf) {
      const d = r.devices.get(key)!;
      const names = namesOf(f.row);
      if (names.alias) d.alias = names.alias;
      if (names.area) d.area = names.area;
      // How late its punches reach the server, from a transaction uploaded lately.
      const t = f.punch.logTime;
      const upload = uploadOf(f.row);
      if (upload && isLogTime(t) && t <= latestPlausible && upload >= recentUploads) {
        const lag = wallClockDiffSeconds(upload, t);
        if (!r.lag || lag > r.lag.seconds) r.lag = { seconds: lag, serial: key, alias: d.alias };
      }
    }
    pendingCursor = { ...cursor };
    r.cursor = { ...cursor };
    if (pending.length >= (o.commitRows ?? COMMIT_ROWS) || o.limits.monotonic() - lastCommit >= COMMIT_MS) flush();
  };

  try {
    await readAll(o, r, fetchPage, take);
  } finally {
    // What was read is journalled also when a later page failed (an answer too large, a deadline).
    flush();
  }
  return r;
}

/**
 * A transaction as the id window remembers it: its id and what it says, so that another
 * transaction under the same id (a renumbered table) is not taken for one journalled already.
 */
const seenKey = (f: RowFacts): string =>
  `${f.id} ${f.punch.biometricCode} ${f.punch.logTime} ${f.punch.device} ${f.punch.punchState}`;

/** One turn of the event loop, up to its check phase: a request asked for just now is on the wire after it. */
const sentBeforeJournalling = (): Promise<void> => nextCheckPhase();

async function readAll(
  o: ReadOptions,
  r: ReadResult,
  fetchPage: (q: URLSearchParams) => Promise<BioPage | undefined>,
  take: (rows: readonly RowFacts[], cursor: BioCursor) => void,
): Promise<ReadResult> {
  if (r.mode === 'id') {
    const query = (after: number) => {
      const q = new URLSearchParams({ page_size: String(o.pageSize), ordering: 'id', id__gt: String(after) });
      if (r.cursor.from) q.set('start_time', r.cursor.from);
      return q;
    };
    const startId = r.cursor.id ?? 0;
    // Each poll starts a window of ids below the cursor: a transaction committed after higher ids
    // were read (two uploads finishing out of order in the server's database) is read then.
    const window = idOverlap(o.pageSize);
    const seen = o.seen ?? new Set<string>();
    /** The highest id read this poll: below the cursor's, the transaction at the cursor is gone. */
    let highest = 0;
    const gone = () => startId > 0 && !r.cursor.from && highest < startId;
    let asked = Math.max(0, startId - window);
    let next = fetchPage(query(asked));
    for (;;) {
      const page = await next;
      if (!page) return r;
      if (page.rows.length === 0) {
        if (gone()) await checkRenumbered(o, r, startId, take);
        else if (r.cursor.from) {
          // The re-read after a renumbered table is done: on by id alone from here.
          const c = { ...r.cursor };
          delete c.from;
          take([], c);
        }
        return r;
      }
      const facts = page.rows.map((row) => rowFacts(row, o.source));
      // A server that ignores the ordering or the id filter: its rows come out of order, or at or below what was asked.
      const ids = facts.map((f) => f.id).filter((id): id is number => id !== undefined);
      if (ids.length === 0 || ids.some((id, i) => id <= (i === 0 ? asked : ids[i - 1]!))) {
        r.mode = 'time';
        r.switchedToTime =
          ids.length === 0
            ? 'its transactions carry no id'
            : `it answers transactions out of id order (ordering=id&id__gt=${asked} is ignored)`;
        o.log.warn(
          { after: asked, first: ids[0] },
          'the BioTime server ignores the id order: its transactions are read by time window from now on',
        );
        break;
      }
      highest = Math.max(highest, ids[ids.length - 1]!);
      // The transaction at the cursor, read again by the window: another one under its id says the
      // table was renumbered, and its new ids may have passed the cursor before this poll (those
      // up to it were never read). Nothing of this page is journalled yet: read from the start.
      const anchor = startId > 0 && !r.cursor.from ? facts.find((f) => f.id === startId) : undefined;
      if (anchor && r.cursor.at !== undefined && atOf(anchor) !== r.cursor.at) {
        renumberedUnder(o, r, startId, r.cursor.at, atOf(anchor), take);
        return readAll(o, r, fetchPage, take);
      }
      const cursor = { ...r.cursor };
      // A cursor kept by an older punchgate learns what its transaction says.
      if (anchor && cursor.at === undefined) cursor.at = atOf(anchor);
      const top = cursor.id ?? 0;
      let last = asked;
      for (let i = 0; i < facts.length; i++) {
        const id = facts[i]!.id;
        if (id === undefined) continue;
        if (last > 0 && id - last > MAX_ID_STEP) {
          const carried = ids.filter((x) => x > id && x - id <= MAX_ID_STEP).length;
          if (carried < JUMP_CONFIRMED) {
            r.implausible++;
            r.implausibleExample ??= `id ${id} after ${last}`;
            break;
          }
        }
        last = id;
      }
      // The cursor never goes back within a poll: the window's ids are below it.
      if (last > top) {
        cursor.id = last;
        const f = facts.find((x) => x.id === last)!;
        cursor.at = atOf(f);
        cursor.recent = withRecent(cursor.recent, facts, last);
      }
      // No progress possible (an implausible id): the next poll tries again. The last page: done.
      const stuck = last <= asked || last < ids[ids.length - 1]!;
      const done = stuck || (page.rows.length < o.pageSize && !page.hasNext);
      // The next page is asked for before this one is journalled: the server prepares it meanwhile.
      if (!done) {
        asked = last;
        next = fetchPage(query(last));
        next.catch(() => undefined); // awaited below; not left unhandled if journalling this page throws
        // undici writes a request on a kept-alive connection only at the event loop's next check
        // phase (a setImmediate: it first looks for bytes the server sent unasked). Journalling now,
        // synchronously, would hold the request back until the commit is done, and the server would
        // start on the page only then: one turn of the loop sends it first, so both work at once.
        await sentBeforeJournalling();
      }
      // The window's rows this process journalled already are not journalled again (the journal
      // would find them duplicates: a disk sync and a count of doubles at every idle poll for nothing).
      const fresh = facts.filter((f) => f.id === undefined || f.id > top || !seen.has(seenKey(f)));
      // Rows past an implausible id are journalled too; the cursor stays below it.
      if (fresh.length > 0 || cursor.id !== r.cursor.id || cursor.at !== r.cursor.at) take(fresh, cursor);
      for (const f of fresh) if (f.id !== undefined) seen.add(seenKey(f));
      const floor = (r.cursor.id ?? 0) - window;
      for (const k of seen) if (Number(k.slice(0, k.indexOf(' '))) <= floor) seen.delete(k);
      if (done) {
        if (!stuck && gone()) {
          await checkRenumbered(o, r, startId, take);
          return r;
        }
        if (!stuck && r.cursor.from) {
          const c = { ...r.cursor };
          delete c.from;
          take([], c);
        }
        return r;
      }
    }
  }

  // Time mode: every page of the window from overlapMinutes before the newest punch read, or the
  // rest of a window a poll read only in part (resume), from one page before where it stopped:
  // rows that moved up a page meanwhile (transactions deleted) are read too; what is read again
  // is deduplicated. Every page's cursor says where the window goes on, so a poll that stops or
  // fails at any page leaves the rest to the next one.
  const resume = r.cursor.resume;
  const newest = r.cursor.time && r.cursor.time < o.nowWall ? r.cursor.time : o.nowWall;
  const start = resume
    ? resume.start || undefined
    : r.cursor.time
      ? shiftWallClock(newest, -o.overlapMinutes * 60)
      : undefined;
  // Not one page back when a poll may read only one page: it would read that page for ever. Pages
  // of another size (pageSize changed since) number other rows: the window is read from its start.
  const first = resume && resume.size === o.pageSize ? Math.max(1, resume.next - (o.limits.maxPages > 1 ? 1 : 0)) : 1;
  let before: number | null = null;
  /** The server's page size: what a page with more after it holds (a server may cap page_size below what is asked). */
  let served = o.pageSize;
  for (let n = first; ;) {
    const q = new URLSearchParams({ page_size: String(o.pageSize), page: String(n) });
    if (start) q.set('start_time', start);
    const page = await fetchPage(q);
    if (!page) return r;
    const facts = page.rows.map((row) => rowFacts(row, o.source));
    const cursor = { ...r.cursor };
    for (const f of facts)
      if (f.id !== undefined && f.id > (cursor.id ?? 0) && f.id - (cursor.id ?? 0) <= MAX_ID_STEP) {
        cursor.id = f.id;
        cursor.at = atOf(f);
      }
    // The list got shorter since the page before (transactions deleted on the server): the rows
    // after the deleted ones moved up by as many, some onto pages read already; those pages are
    // read again (deduplicated) before going on.
    const fell = page.count !== null && before !== null && page.count < before ? before - page.count : 0;
    before = page.count;
    if (page.hasNext && page.rows.length + page.notRows > 0) served = page.rows.length + page.notRows;
    const next = fell > 0 ? Math.max(1, n - Math.ceil(fell / served)) : n + 1;
    const last = fell === 0 && (!page.hasNext || page.rows.length === 0);
    if (last) delete cursor.resume;
    else cursor.resume = { start: start ?? '', next, size: o.pageSize };
    take(facts, cursor);
    if (last) return r;
    n = next;
  }
}

/**
 * An id-mode read that found nothing newer than the cursor: is the transaction at the cursor gone,
 * the server's newest id below it? Then its table was cleared or renumbered (restored from a
 * backup, a new database): the cursor goes back, and the table is read again from its first
 * transaction (what the journal holds is not doubled). Read again only from overlapMinutes before
 * the newest punch read, as before, a transaction the restored table holds with an older punch
 * time (a terminal's late upload since the restore) was never read.
 *
 * Decided by the id filter, which id mode has shown the server obeys, never by `ordering=-id`
 * alone: a server that ignores the ordering answers its oldest transaction to "the newest", and
 * was taken for a renumbered one at every poll that found nothing new (an alert and a day read
 * again each time; found by an adversarial trial). The descending answer only names the newest id
 * in the alert's words, once checked to be the newest.
 */
async function checkRenumbered(
  o: ReadOptions,
  r: ReadResult,
  after: number,
  take: (rows: readonly RowFacts[], cursor: BioCursor) => void,
): Promise<void> {
  const ask = (q: Record<string, string>): Promise<BioPage> => {
    r.pages++;
    return o.client.transactions(new URLSearchParams({ page_size: '1', ...q }), o.signal);
  };
  // The transaction at the cursor (or one after it) is still there: nothing was renumbered.
  const kept = await ask({ ordering: 'id', id__gt: String(after - 1) });
  if (kept.rows.length > 0) return;
  const page = await ask({ ordering: '-id' });
  let newest = page.rows[0] ? rowId(page.rows[0]) : undefined;
  if (page.rows.length > 0 && (newest === undefined || newest >= after)) return;
  if (newest !== undefined && (await ask({ ordering: 'id', id__gt: String(newest) })).rows.length > 0) {
    o.log.warn(
      { answered: newest },
      'the BioTime server ignores ordering=-id (its "newest" transaction has newer ones): the newest id is not named',
    );
    newest = undefined;
  }
  // The newest is a transaction read under its id, and says what it said then: the ones after it
  // were deleted on the server, the rest of the table is as it was. Not a renumbered table (its
  // alert, and the whole table read again): the cursor goes back to it, and new ones are read from there.
  const known = newest !== undefined ? r.cursor.recent?.find(([id]) => id === newest) : undefined;
  if (known && page.rows[0] && atOf(rowFacts(page.rows[0], o.source)) === known[1]) {
    o.log.warn(
      { after: newest, readUpTo: after },
      `the BioTime server no longer has its transactions after id ${newest} (punchgate had read up to ${after}): deleted there; punches already read are kept (and delivered), and punchgate reads on from id ${newest}`,
    );
    const recent = r.cursor.recent!.filter(([id]) => id <= known[0]);
    take([], { ...r.cursor, id: known[0], at: known[1], recent });
    return;
  }
  r.renumbered =
    page.rows.length === 0
      ? `the server's transaction table is empty, but punchgate had read up to id ${after}: it was cleared or replaced`
      : `the server's newest transaction is ${newest !== undefined ? `id ${newest}, ` : ''}below the ${after} punchgate had read up to: its transaction table was renumbered (restored or replaced)`;
  const cursor: BioCursor = { id: 0, ...(r.cursor.time ? { time: r.cursor.time } : {}) };
  o.log.warn({ after, newest: newest ?? null }, `${r.renumbered}: read again from its first transaction`);
  o.seen?.clear();
  // The cursor is set back now (with no punches): the next read goes on from there, also after a crash.
  take([], cursor);
}

/**
 * The transaction at the cursor's id is another one than the cursor's (renumbered: restored from a
 * backup, truncated, migrated), with new ids up to or past the cursor. The cursor goes back to
 * the start, with no punches, before anything of the new numbering is journalled: the table is
 * read again from its first id (what the journal holds already is not doubled).
 */
function renumberedUnder(
  o: ReadOptions,
  r: ReadResult,
  id: number,
  was: string,
  now: string,
  take: (rows: readonly RowFacts[], cursor: BioCursor) => void,
): void {
  r.renumbered = `the server's transaction ${id} is another one than punchgate read under that id (${was}, now ${now}): its transaction table was renumbered (restored or replaced)`;
  o.log.warn({ id }, `${r.renumbered}: read again from its first transaction`);
  o.seen?.clear();
  take([], { id: 0, ...(r.cursor.time ? { time: r.cursor.time } : {}) });
}
