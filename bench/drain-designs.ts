/**
 * `drain-designs` (issue 35): why the drain does not reach half the bare POST loop, measured on
 * the designs that could move it. Two probes, info rows only (no design here is what punchgate
 * ships):
 *
 * 1. **The journal's SQL alone**, per punch and per batch of 200 and 1000, on a copy of the same
 *    journal (built by the real Journal, every index it has): the statements of
 *    src/journal/journal.ts as shipped (the pick through the queue index, each row marked in
 *    flight, then each row settled), against a claim of one row a batch (the rows keep their
 *    state until settled), and that claim with only the indexes the queue itself needs. Commits
 *    without a sync of their own (the drain syncs apart) and with no checkpoint, so the WAL's size
 *    afterwards is what each design writes: bytes per punch, the disk wear of a delivery.
 * 2. **The journal work on a worker thread**: the real Journal's settle and claim (one
 *    transaction) on its own connection in a worker (bench/worker-journal.ts), the POST of the
 *    batch before on the main thread at the same time, against the bare POST loop. On a 2-core
 *    box three threads are then busy (the worker, the HTTP client, the HRMS simulator).
 */
import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Database } from '../src/journal/sqlite-driver.js';
import { Agent } from 'undici';
import {
  outboundPunch,
  postBatch,
  preparedJournal,
  inBatches,
  startHrmsChild,
  timedRawPostLoop,
  type HrmsChild,
} from './lib/hrms.js';
import { scaled } from './lib/scale.js';
import { scratchDir } from './lib/setup.js';
import { fmt, log, type BenchRow } from './lib/table.js';
import { collectGarbage, median, nowMs, rate } from './lib/timing.js';
import type { JournalAnswer, JournalAsk } from './worker-journal.js';

const ROUNDS = 3;
const SIZES = [200, 1000] as const;

interface SqlDesign {
  name: string;
  /** Each claimed row marked in flight (as shipped), or one claim row a batch. */
  markRows: boolean;
  dropIndexes: readonly string[];
}

const DESIGNS: readonly SqlDesign[] = [
  { name: 'as shipped: each row marked in flight, then settled', markRows: true, dropIndexes: [] },
  { name: 'one claim row a batch, each row settled', markRows: false, dropIndexes: [] },
  {
    name: 'one claim row a batch, only the queue index',
    markRows: false,
    dropIndexes: [
      'punches_delivered_at',
      'punches_inflight',
      'punches_owed_by_time',
      'punches_unknown_cards',
      'punches_refused',
    ],
  },
];

/** The same pick, mark and settle as src/journal/journal.ts; a claim row holds a batch's ids as JSON. */
function sqlDrain(path: string, design: SqlDesign, batch: number): { ms: number; settled: number; walBytes: number } {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('wal_autocheckpoint = 0');
    for (const index of design.dropIndexes) db.exec(`DROP INDEX ${index}`);
    db.exec('CREATE TABLE claims (id INTEGER PRIMARY KEY, holder TEXT NOT NULL, ids TEXT NOT NULL)');
    const pick = db
      .prepare(
        `SELECT id, site, terminal, device, biometric_code, log_time, punch_state, sent_as, attempts, state
        FROM punches WHERE state IN ('pending', 'rejected') AND (state = 'pending' OR @all OR next_attempt_at <= @now)
        ${design.markRows ? '' : 'AND id NOT IN (SELECT value FROM claims, json_each(claims.ids))'}
        ORDER BY log_time, id LIMIT @limit`,
      )
      .raw();
    const markInflight = db.prepare(`UPDATE punches SET claimed_from = state, claimed_by = @holder, state = 'inflight',
        updated_at = @now WHERE id IN (SELECT value FROM json_each(@ids))`);
    const claimRow = db.prepare('INSERT INTO claims (holder, ids) VALUES (@holder, @ids)');
    const dropClaim = db.prepare('DELETE FROM claims WHERE id = ?');
    const delivered = db
      .prepare(
        `UPDATE punches SET state = 'delivered', claimed_from = NULL, claimed_by = NULL, duplicate = 0,
        attempts = attempts + 1, last_message = NULL, delivered_at = @now, updated_at = @now, next_attempt_at = NULL
        WHERE id IN (SELECT value FROM json_each(@ids))
        AND ${design.markRows ? "state = 'inflight' AND claimed_by = @holder" : "state IN ('pending', 'rejected')"}
        RETURNING terminal`,
      )
      .pluck();
    const holder = 'bench-holder';
    const now = Date.now();
    let last: { ids: string; claim: number | bigint } | undefined;
    let settled = 0;
    const t0 = nowMs();
    for (;;) {
      const got = db
        .transaction(() => {
          if (last) {
            settled += delivered.all(design.markRows ? { ids: last.ids, now, holder } : { ids: last.ids, now }).length;
            if (!design.markRows) dropClaim.run(last.claim);
          }
          const rows = pick.all({ now, limit: batch, all: 0 }) as [number, ...unknown[]][];
          const ids = JSON.stringify(rows.map((r) => r[0]));
          if (rows.length === 0) return 0;
          if (design.markRows) {
            markInflight.run({ now, holder, ids });
            last = { ids, claim: 0 };
          } else last = { ids, claim: claimRow.run({ holder, ids }).lastInsertRowid };
          return rows.length;
        })
        .immediate();
      if (got === 0) break;
    }
    const ms = nowMs() - t0;
    return { ms, settled, walBytes: statSync(`${path}-wal`).size };
  } finally {
    db.close();
  }
}

/** The drain with its journal work on a worker thread, the POST of each batch on this one at the same time. */
async function workerDrain(
  path: string,
  url: string,
  batch: number,
): Promise<{ ms: number; sent: number; busyMs: number }> {
  const worker = new Worker(new URL('./worker-journal.js', import.meta.url), { workerData: { path } });
  // One answer a question, in order: a queue of the waiting questions' callbacks.
  const waiting: { resolve: (a: JournalAnswer) => void; reject: (e: unknown) => void }[] = [];
  worker.on('message', (a: JournalAnswer) => waiting.shift()?.resolve(a));
  worker.on('error', (e) => waiting.splice(0).forEach((w) => w.reject(e)));
  const ask = (m: JournalAsk) =>
    new Promise<JournalAnswer>((resolve, reject) => {
      waiting.push({ resolve, reject });
      worker.postMessage(m);
    });
  const agent = new Agent();
  let busyMs = 0;
  let sent = 0;
  try {
    // Timed from the first batch claimed: the worker's start and the journal's opening are not the drain's.
    let current = await ask({ claim: batch });
    const t0 = nowMs();
    let settle: number[] | undefined;
    while (current.ids.length > 0) {
      // The worker settles the batch before and claims the next while this one is on the wire.
      const next = ask({ ...(settle ? { settle } : {}), claim: batch });
      await postBatch(url, current.punches, agent);
      sent += current.ids.length;
      settle = current.ids;
      current = await next;
      busyMs += current.busyMs;
    }
    if (settle) busyMs += (await ask({ settle, claim: 0 })).busyMs;
    return { ms: nowMs() - t0, sent, busyMs };
  } finally {
    worker.postMessage('close');
    await new Promise((resolve) => worker.once('exit', resolve));
    await agent.close();
  }
}

async function sqlRows(dir: string, total: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const source = preparedJournal(dir, 'designs-source.db', total);
  for (const size of SIZES) {
    const figures = DESIGNS.map(() => ({ ms: [] as number[], wal: [] as number[] }));
    for (let round = 1; round <= ROUNDS; round++)
      DESIGNS.forEach((design, i) => {
        const path = join(dir, `designs-${size}-${round}-${i}.db`);
        copyFileSync(source, path);
        collectGarbage();
        const r = sqlDrain(path, design, size);
        if (r.settled !== total) throw new Error(`drain-designs: "${design.name}" settled ${r.settled} of ${total}`);
        figures[i]!.ms.push(r.ms);
        figures[i]!.wal.push(r.walBytes / total);
      });
    const shipped = figures[0]!;
    DESIGNS.forEach((design, i) => {
      const f = figures[i]!;
      log(
        `  batch ${size}, ${design.name}: ${fmt((median(f.ms) * 1000) / total, 2)} µs a punch, ` +
          `${fmt(median(f.wal))} bytes of WAL a punch`,
      );
      rows.push(
        {
          bench: 'drain-designs',
          metric: `SQL alone, batch ${size}: ${design.name}`,
          unit: 'punches/s',
          ours: rate(total, median(f.ms)),
          baseline: rate(total, median(shipped.ms)),
          ratio: median(shipped.ms) / median(f.ms),
          ratioAs: 'times',
          target: 'info',
          note: 'baseline: the SQL as shipped',
        },
        {
          bench: 'drain-designs',
          metric: `WAL written a punch, batch ${size}: ${design.name}`,
          unit: 'bytes',
          ours: median(f.wal),
          baseline: median(shipped.wal),
          ratio: median(f.wal) / median(shipped.wal),
          target: 'info',
          note: 'baseline: the SQL as shipped',
        },
      );
    });
  }
  return rows;
}

async function workerRows(sim: HrmsChild, dir: string, total: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const url = sim.ready.url;
  const all = Array.from({ length: total }, (_, i) => outboundPunch(i));
  for (const size of SIZES) {
    const batches = inBatches(all, size);
    const raw: number[] = [];
    const ours: number[] = [];
    const busy: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const rawMs = await timedRawPostLoop(sim, batches);
      await sim.call('reset');
      const path = preparedJournal(dir, `worker-${size}-${round}.db`, total);
      collectGarbage();
      const run = await workerDrain(path, url, size);
      if (run.sent !== total) throw new Error(`drain-designs: the worker drain sent ${run.sent} of ${total}`);
      if (round === 0) continue; // warm-up: the JIT and the simulator's first requests
      raw.push(rawMs);
      ours.push(run.ms);
      busy.push(run.busyMs / run.ms);
      log(
        `  batch ${size}, round ${round}: raw POST ${fmt(rate(total, rawMs))}/s, journal on a worker ` +
          `${fmt(rate(total, run.ms))}/s (the worker busy ${fmt((run.busyMs / run.ms) * 100)} % of it)`,
      );
    }
    rows.push({
      bench: 'drain-designs',
      metric: `drain with the journal work on a worker thread, batch ${size}`,
      unit: 'punches/s',
      ours: rate(total, median(ours)),
      baseline: rate(total, median(raw)),
      ratio: median(raw) / median(ours),
      target: 'info',
      note: `baseline: the bare POST loop; the worker was busy ${fmt(median(busy) * 100)} % of the drain`,
    });
  }
  return rows;
}

export async function benchDrainDesigns(): Promise<BenchRow[]> {
  const total = scaled(50_000, { step: 1000 });
  log(`drain-designs: ${fmt(total)} punches a run, batch sizes ${SIZES.join(' and ')}, median of ${ROUNDS} rounds`);
  const scratch = scratchDir('drain-designs');
  const sim = await startHrmsChild();
  try {
    return [...(await sqlRows(scratch.dir, total)), ...(await workerRows(sim, scratch.dir, total))];
  } finally {
    await sim.stop();
    scratch.remove();
  }
}
