/**
 * Benchmark 1 (issue 2): ingest rate into the journal, dedup included, next to a bare
 * better-sqlite3 insert loop with the same durability (WAL + synchronous=FULL), the same
 * columns and the same transaction size, but no unique constraint and no index.
 *
 * Our side calls Journal.ingest() once per batch of 500 punches, as a poll delivers them
 * (one transaction per call), then ingests the same punches again: a terminal's whole log
 * read again, where every punch is a duplicate the journal must recognise and skip.
 */
import { join } from 'node:path';
import { Database } from '../src/journal/sqlite-driver.js';
import { Journal } from '../src/journal/index.js';
import type { Punch } from '../src/punch.js';
import { syntheticPunches } from './lib/punches.js';
import { scaled } from './lib/scale.js';
import { scratchDir, BENCH_SITE } from './lib/setup.js';
import { log, ratioRow, fmt, type BenchRow } from './lib/table.js';
import { collectGarbage, median, nowMs, rate } from './lib/timing.js';

const BATCH = 500;
const ROUNDS = 3;
const MIN_RATIO = 0.5;

/** The journal's punches table, minus its constraints, generated column and indexes. */
const RAW_SCHEMA = `CREATE TABLE raw_punches (
  id INTEGER PRIMARY KEY, terminal TEXT, device TEXT, biometric_code TEXT, log_time TEXT, verify_type INTEGER,
  punch_state INTEGER, site TEXT, state TEXT, claimed_from TEXT, attempts INTEGER DEFAULT 0, next_attempt_at INTEGER,
  first_rejected_at INTEGER, last_message TEXT, duplicate INTEGER DEFAULT 0, created_at INTEGER, updated_at INTEGER,
  delivered_at INTEGER)`;

function rawInsertLoop(path: string, batches: readonly Punch[][]): number {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(RAW_SCHEMA);
  const insert = db.prepare(`INSERT INTO raw_punches
      (terminal, device, biometric_code, log_time, verify_type, punch_state, site, state, last_message, created_at, updated_at)
      VALUES (@terminal, @device, @code, @logTime, @verifyType, @punchState, @site, @state, @message, @now, @now)`);
  const writeBatch = db.transaction((batch: readonly Punch[], now: number) => {
    for (const p of batch) {
      insert.run({
        terminal: p.terminal,
        device: p.device ?? '',
        code: p.biometricCode,
        logTime: p.logTime,
        verifyType: p.verifyType ?? null,
        punchState: p.punchState ?? null,
        site: BENCH_SITE,
        state: 'pending',
        message: null,
        now,
      });
    }
  });
  const t0 = nowMs();
  for (const b of batches) writeBatch.immediate(b, Date.now());
  const ms = nowMs() - t0;
  db.close();
  return ms;
}

function journalIngest(journal: Journal, batches: readonly Punch[][], expectNew: boolean): number {
  const t0 = nowMs();
  let added = 0;
  let duplicates = 0;
  for (const b of batches) {
    const r = journal.ingest(b);
    added += r.added;
    duplicates += r.duplicates;
  }
  const ms = nowMs() - t0;
  const total = batches.reduce((n, b) => n + b.length, 0);
  if (expectNew ? added !== total : duplicates !== total) {
    throw new Error(
      `journal ingest: expected ${total} ${expectNew ? 'new' : 'duplicate'} punches, got ${added} new, ${duplicates} duplicates`,
    );
  }
  return ms;
}

export async function benchIngest(): Promise<BenchRow[]> {
  const total = scaled(200_000, { step: BATCH });
  const batches: Punch[][] = [];
  for (let from = 0; from < total; from += BATCH) batches.push(syntheticPunches(from, Math.min(BATCH, total - from)));
  log(
    `ingest: ${fmt(total)} punches in batches of ${BATCH}, ${ROUNDS} rounds (baseline and ours alternate), median of the rounds`,
  );

  const raw: number[] = [];
  const fresh: number[] = [];
  const again: number[] = [];
  const scratch = scratchDir('ingest');
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      collectGarbage();
      raw.push(rawInsertLoop(join(scratch.dir, `raw-${round}.db`), batches));
      collectGarbage();
      const journal = Journal.open({ path: join(scratch.dir, `journal-${round}.db`), site: BENCH_SITE, mode: 'owner' });
      try {
        fresh.push(journalIngest(journal, batches, true));
        collectGarbage();
        again.push(journalIngest(journal, batches, false));
      } finally {
        journal.close();
      }
      log(
        `  round ${round}: raw insert ${fmt(rate(total, raw.at(-1)!))}/s, journal new ${fmt(rate(total, fresh.at(-1)!))}/s, ` +
          `journal re-ingest ${fmt(rate(total, again.at(-1)!))}/s`,
      );
    }
  } finally {
    scratch.remove();
  }

  const baseline = rate(total, median(raw));
  const row = (metric: string, ms: number, note: string) =>
    ratioRow({
      bench: 'ingest',
      metric,
      unit: 'punches/s',
      ours: rate(total, ms),
      baseline,
      minRatio: MIN_RATIO,
      note,
    });
  return [
    row(
      'ingest new punches',
      median(fresh),
      'Journal.ingest, 500 per call (one transaction), unique index + 2 partial indexes',
    ),
    row('re-ingest known punches (dedup)', median(again), 'same punches again: every one a duplicate, nothing written'),
  ];
}
