/**
 * A journal of a year of punches for the size benchmarks (issue 35): `delivered` punches spread
 * over the terminals t1..tN, all delivered within the retention (so the daemon's prune deletes
 * nothing), written as one transaction of bulk inserts (seconds, not the minutes of ingest +
 * claim + settle), then counted (punch_counts) as the journal keeps them. The file is kept in
 * the bench's temp folder between runs (keyed by size and schema) and copied for each use.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal } from '../../src/journal/index.js';
import { MIGRATIONS } from '../../src/journal/migrations.js';
import { recountPunches } from '../../src/journal/punch-counts.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { logTimeAt } from './punches.js';
import { BENCH_SITE } from './setup.js';
import { log, fmt } from './table.js';
import { nowMs } from './timing.js';

const DAY_MS = 86_400_000;
/** The delivered history spans this many days before now (inside the default retention of 400). */
const HISTORY_DAYS = 300;

function cachePath(delivered: number, terminals: number): string {
  const dir = join(process.env.BENCH_DIR ?? tmpdir(), 'punchgate-bench-cache');
  mkdirSync(dir, { recursive: true });
  // Keyed by the schema itself: a changed migration builds the file again.
  const schema = createHash('sha256').update(MIGRATIONS.join('\n')).digest('hex').slice(0, 12);
  return join(dir, `delivered-${delivered}-t${terminals}-schema-${schema}.db`);
}

function build(path: string, delivered: number, terminals: number): void {
  const t0 = nowMs();
  const tmp = `${path}.building`;
  for (const s of ['', '-wal', '-shm', '.lock']) rmSync(tmp + s, { force: true });
  // The schema as punchgate makes it.
  Journal.open({ path: tmp, site: BENCH_SITE, mode: 'owner' }).close();
  const db = new Database(tmp);
  try {
    db.pragma('synchronous = OFF');
    const insert =
      db.prepare(`INSERT INTO punches (terminal, device, biometric_code, log_time, verify_type, punch_state,
        site, state, attempts, created_at, updated_at, delivered_at) VALUES (?, ?, ?, ?, 1, 0, ?, 'delivered', 1, ?, ?, ?)`);
    const now = Date.now();
    const first = now - HISTORY_DAYS * DAY_MS;
    const step = (HISTORY_DAYS * DAY_MS) / delivered;
    db.transaction(() => {
      for (let i = 0; i < delivered; i++) {
        const at = Math.floor(first + i * step);
        const t = i % terminals;
        insert.run(`t${t + 1}`, `FILL${t}`, String(1000 + (i % 500)), logTimeAt(at), BENCH_SITE, at, at, at + 1000);
      }
    })();
    recountPunches(db);
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  renameSync(tmp, path);
  for (const s of ['-wal', '-shm', '.lock']) rmSync(tmp + s, { force: true });
  log(
    `  built a journal of ${fmt(delivered)} delivered punches in ${fmt((nowMs() - t0) / 1000, 1)} s (kept at ${path})`,
  );
}

/** Copies a journal of `delivered` delivered punches over `terminals` terminals to `path` (built once, then cached). */
export function bigJournal(path: string, delivered: number, terminals: number): void {
  const cached = cachePath(delivered, terminals);
  if (!existsSync(cached)) build(cached, delivered, terminals);
  copyFileSync(cached, path);
}
