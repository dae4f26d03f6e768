import type { Database } from 'better-sqlite3';
import type { WriteGate } from './write-gate.js';

export const HOUR_MS = 3_600_000;
/** The start of the (UTC) hour of `ms`. */
export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
/** Hours kept in hourly_stats: the page shows 24, a day more covers a box that was off. */
const KEPT_HOURS = 48;

/** What the status page's charts show, one figure per hour, oldest first (`hours` are the hours' starts). */
export interface HourlySeries {
  /** When these figures were counted (epoch ms): the page reads them again once a minute, not at every view. */
  countedAt: number;
  hours: number[];
  /** Punches journalled per hour, by terminal (when they reached the box). */
  punchesByTerminal: Map<string, number[]>;
  /** The most punches waiting (pending and in flight) seen in each hour; null where none was seen (the daemon was off). */
  queueMax: (number | null)[];
  /** Punches the HRMS took (or already had), refused, and requests that failed as a whole (no answer, 5xx...). */
  delivered: number[];
  refused: number[];
  failedRequests: number[];
}

/**
 * Figures per hour for the status page's charts. What the journal holds already is counted from
 * it when asked (punches by the time they were journalled, delivered, refused: by row-id range or
 * index, only the last day is read); what it does not hold is kept here, one row per hour and
 * figure (table hourly_stats, migration 9): the queue's highest count (sampled by the daemon at
 * each status write) and the requests that failed as a whole. Rows older than two days go.
 */
export class HourlyStats {
  private readonly stmt;
  /** Samples not written yet (the journal was busy): merged per hour, written together. */
  private readonly unwritten = new Map<number, { queue: number; failedRequests: number }>();

  constructor(
    private readonly db: Database,
    private readonly gate: WriteGate,
  ) {
    this.stmt = {
      max: db.prepare(`INSERT INTO hourly_stats (hour, name, value) VALUES (?, ?, ?)
          ON CONFLICT (hour, name) DO UPDATE SET value = max(value, excluded.value)`),
      add: db.prepare(`INSERT INTO hourly_stats (hour, name, value) VALUES (?, ?, ?)
          ON CONFLICT (hour, name) DO UPDATE SET value = value + excluded.value`),
      prune: db.prepare(`DELETE FROM hourly_stats WHERE hour < ?`),
      read: db.prepare(`SELECT hour, name, value FROM hourly_stats WHERE hour >= ?`),
      createdAtFrom: db.prepare(`SELECT created_at AS at FROM punches WHERE id >= ? ORDER BY id LIMIT 1`),
      idRange: db.prepare(`SELECT (SELECT min(id) FROM punches) AS lo, (SELECT max(id) FROM punches) AS hi`),
      journaled: db.prepare(`SELECT terminal, created_at / ${HOUR_MS} AS h, count(*) AS n FROM punches NOT INDEXED
          WHERE id >= ? AND created_at >= ? GROUP BY terminal, h`),
      delivered: db.prepare(`SELECT delivered_at / ${HOUR_MS} AS h, count(*) AS n FROM punches
          WHERE state = 'delivered' AND delivered_at >= ? GROUP BY h`),
      refused: db.prepare(`SELECT at / ${HOUR_MS} AS h, count(*) AS n FROM punch_refusals WHERE at >= ? GROUP BY h`),
    };
  }

  /**
   * One sample at `now`: the queue's size (kept as the hour's highest) and requests that failed
   * since the last sample (added up). One small transaction; a busy journal keeps it for later.
   */
  record(now: number, sample: { queue: number; failedRequests: number }): void {
    const hour = hourOf(now);
    const before = this.unwritten.get(hour);
    this.unwritten.set(hour, {
      queue: Math.max(before?.queue ?? 0, sample.queue),
      failedRequests: (before?.failedRequests ?? 0) + sample.failedRequests,
    });
    this.gate.defer('hourly-stats', () => this.write());
  }

  private write(): void {
    this.db
      .transaction(() => {
        for (const [hour, s] of this.unwritten) {
          this.stmt.max.run(hour, 'queue_max', s.queue);
          if (s.failedRequests > 0) this.stmt.add.run(hour, 'requests_failed', s.failedRequests);
        }
        const newest = Math.max(...this.unwritten.keys());
        this.stmt.prune.run(newest - KEPT_HOURS * HOUR_MS);
      })
      .immediate();
    this.unwritten.clear();
  }

  /** The last `hours` hours up to the one of `now`, each figure per hour. */
  series(now: number, hours = 24): HourlySeries {
    const last = hourOf(now);
    const first = last - (hours - 1) * HOUR_MS;
    const slots = Array.from({ length: hours }, (_, i) => first + i * HOUR_MS);
    const at = (ms: number) => Math.floor((ms - first) / HOUR_MS);
    const zeros = () => slots.map(() => 0);
    const punchesByTerminal = new Map<string, number[]>();
    for (const r of this.stmt.journaled.all(this.firstIdFrom(first), first) as {
      terminal: string;
      h: number;
      n: number;
    }[]) {
      const i = at(Math.floor(r.h) * HOUR_MS);
      if (i < 0 || i >= hours) continue;
      const row = punchesByTerminal.get(r.terminal) ?? zeros();
      row[i]! += r.n;
      punchesByTerminal.set(r.terminal, row);
    }
    const perHour = (rows: { h: number; n: number }[]) => {
      const out = zeros();
      for (const r of rows) {
        const i = at(Math.floor(r.h) * HOUR_MS);
        if (i >= 0 && i < hours) out[i]! += r.n;
      }
      return out;
    };
    const queueMax: (number | null)[] = slots.map(() => null);
    const failedRequests = zeros();
    for (const r of this.stmt.read.all(first) as { hour: number; name: string; value: number }[]) {
      const i = at(r.hour);
      if (i < 0 || i >= hours) continue;
      if (r.name === 'queue_max') queueMax[i] = r.value;
      else if (r.name === 'requests_failed') failedRequests[i] = r.value;
    }
    return {
      countedAt: now,
      hours: slots,
      punchesByTerminal,
      queueMax,
      delivered: perHour(this.stmt.delivered.all(first) as { h: number; n: number }[]),
      refused: perHour(this.stmt.refused.all(first) as { h: number; n: number }[]),
      failedRequests,
    };
  }

  /**
   * The first punch row journalled at or after `since`: row ids grow with the time of journalling,
   * so a binary search over ids finds it in a few lookups (no index on created_at is needed, and
   * only the last day's rows are read).
   */
  private firstIdFrom(since: number): number {
    const { lo, hi } = this.stmt.idRange.get() as { lo: number | null; hi: number | null };
    if (lo === null || hi === null) return 0;
    let a = lo;
    let b = hi + 1;
    while (a < b) {
      const mid = Math.floor((a + b) / 2);
      const row = this.stmt.createdAtFrom.get(mid) as { at: number } | undefined;
      if (row === undefined || row.at >= since) b = mid;
      else a = mid + 1;
    }
    // A clock set back can put a few older rows after newer ones: the query filters by time as well.
    return a;
  }
}
