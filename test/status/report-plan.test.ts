import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPushState } from '../../src/check/adms-check.js';
import { readListenStates } from '../../src/check/hikvision-listen-check.js';
import { checkJournal } from '../../src/check/journal-check.js';
import { readAuthRefusals, readTerminalLedger } from '../../src/check/ledger.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { JournalTotals } from '../../src/metrics/journal-totals.js';
import { PunchgateMetrics } from '../../src/metrics/registry.js';
import { UNKNOWN_CARD_PREFIX } from '../../src/punch.js';
import { buildStatus } from '../../src/status/index.js';
import { LatestReport } from '../../src/status/latest.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * Every query the status report (with its alerts), /metrics, the page's charts and `punchgate
 * check` run stays on an index: none
 * reads the whole punches table, whose delivered history grows for a year (issue 35). The
 * queries are not listed here: every statement the journal executes while they are built is
 * captured (the driver's Statement methods are wrapped for the time of the build), and each is
 * run through SQLite's EXPLAIN QUERY PLAN with the parameters it ran with, on a real journal
 * file holding punches in every state. A new query in the report cannot escape the check.
 */

interface Ran {
  sql: string;
  args: unknown[];
}

/** Runs `fn` and returns every SQL statement executed meanwhile, with its parameters. */
function capture(db: Database, fn: () => unknown): Promise<Ran[]> {
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<string, unknown>;
  const methods = ['get', 'all', 'iterate', 'run'] as const;
  const saved = methods.map((m) => proto[m]);
  const ran: Ran[] = [];
  for (const [i, m] of methods.entries()) {
    const original = saved[i] as (...a: unknown[]) => unknown;
    proto[m] = function (this: { source: string }, ...args: unknown[]) {
      ran.push({ sql: this.source, args });
      return original.apply(this, args);
    };
  }
  const restore = () => methods.forEach((m, i) => (proto[m] = saved[i]));
  try {
    const out = fn();
    if (out instanceof Promise) return out.then(() => ran).finally(restore);
  } catch (e) {
    restore();
    throw e;
  }
  restore();
  return Promise.resolve(ran);
}

/**
 * The indexes on punches that hold no delivered punch (partial indexes whose WHERE refuses a
 * delivered row): scanning one of them costs the backlog, never the history.
 */
function smallIndexes(db: Database): Set<string> {
  const rows = db
    .prepare(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('punches', 'sink_deliveries') AND sql IS NOT NULL`,
    )
    .all() as { name: string; sql: string }[];
  const out = new Set<string>();
  for (const r of rows) {
    const where = /\bWHERE\b([\s\S]*)$/i.exec(r.sql)?.[1];
    if (!where) continue;
    // A delivered row of either identity (with and without a device), with a code the indexes may select.
    const admits = [`''`, `'SN-1'`].some(
      (device) =>
        (
          db
            .prepare(
              `SELECT (${where}) AS ok FROM (SELECT 'delivered' AS state, ${device} AS device, 'card:1' AS biometric_code, 'erp' AS sink)`,
            )
            .get() as { ok: number | null }
        ).ok === 1,
    );
    if (!admits) out.add(r.name);
  }
  return out;
}

/** The plan lines of `ran` that read the whole punches table or a sink's whole copy of it (or an index as large). */
function fullScans(db: Database, ran: readonly Ran[]): string[] {
  const small = smallIndexes(db);
  const bad: string[] = [];
  const seen = new Set<string>();
  for (const r of ran) {
    if (seen.has(r.sql) || /^\s*(PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(r.sql)) continue;
    seen.add(r.sql);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${r.sql}`).all(...r.args) as { detail: string }[];
    // The plan names a table by its alias where it has one (`FROM punches r JOIN punches t`: SCAN t).
    const names = new Set(['punches', 'sink_deliveries']);
    for (const m of r.sql.matchAll(/\b(?:punches|sink_deliveries)\s+(?:AS\s+)?(\w+)/gi))
      if (!/^(WHERE|JOIN|ON|SET|GROUP|ORDER|LIMIT|INNER|LEFT|CROSS|USING|INDEXED|NOT|VALUES)$/i.test(m[1]!))
        names.add(m[1]!);
    for (const { detail } of plan) {
      const scan = /^SCAN (\w+)\b(?: USING (?:COVERING )?INDEX (\w+))?/.exec(detail);
      if (scan && names.has(scan[1]!) && !(scan[2] && small.has(scan[2])))
        bad.push(`${detail}  <-  ${r.sql.replace(/\s+/g, ' ').trim()}`);
      // A sink's rows found by its name alone: every punch it was ever sent, its whole history.
      const whole = /^SEARCH (\w+) USING (?:COVERING )?(?:PRIMARY KEY|INDEX \w+) \(sink=\?\)$/.exec(detail);
      if (whole && names.has(whole[1]!)) bad.push(`${detail}  <-  ${r.sql.replace(/\s+/g, ' ').trim()}`);
    }
  }
  return bad;
}

describe('status report queries stay on indexes', () => {
  const tmp = tempDir();
  const clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  let journal: Journal;
  let config: Config;

  beforeAll(() => {
    config = parseConfig(
      {
        site: 'plant-a',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        sinks: [{ name: 'erp', kind: 'hrms', baseUrl: 'https://erp.example.com', tokenFile: 'token' }],
        terminals: [
          { name: 'gate-1', kind: 'zk', host: '10.0.0.1' },
          { name: 'gate-2', kind: 'zk', host: '10.0.0.2' },
          { name: 'door-1', kind: 'zk', host: '10.0.0.3' },
        ],
      },
      tmp.dir,
    );
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner', deadAfterAttempts: 2 });
    // The warehouse delivers to erp only: its punches are not_routed for hrms (not-routed.ts).
    journal.useSinks({ defaultSink: 'hrms', others: ['erp'], defaultNotFor: ['warehouse'] });
    const at = (i: number) => {
      const m = i % 1440;
      return `2026-11-${String(1 + Math.floor(i / 1440)).padStart(2, '0')} ${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00`;
    };
    // A delivered history, then a backlog in every state.
    const punches = Array.from({ length: 3000 }, (_, i) => ({
      terminal: ['gate-1', 'gate-2', 'door-1'][i % 3]!,
      device: i % 3 === 0 ? 'SN-1' : '',
      biometricCode: i % 50 === 0 ? `${UNKNOWN_CARD_PREFIX}${i}` : String(1000 + (i % 40)),
      logTime: at(i),
    }));
    journal.ingest([
      ...punches,
      ...Array.from({ length: 30 }, (_, i) => ({ terminal: 'warehouse', biometricCode: '42', logTime: at(i) })),
    ]);
    for (let c = journal.claim(1000); c.length > 0; c = journal.claim(1000))
      journal.settle(c.map((p) => ({ id: p.id, kind: 'delivered' as const })));
    journal.ingest(punches.map((p, i) => ({ ...p, logTime: at(i + 20_000) })));
    const refused = journal.claim(30);
    journal.settle(refused.map((p, i) => ({ id: p.id, kind: 'rejected' as const, message: `refused ${i % 3}` })));
    const again = journal.claim(10, { ignoreBackoff: true });
    journal.settle(again.map((p) => ({ id: p.id, kind: 'rejected' as const, message: 'refused again' })));
    journal.claim(20); // left in flight
    // The second sink: its own delivered history, refusals and backlog.
    const erp = journal.sinkQueue('erp');
    for (let c = erp.claim(1000); c.length > 0 && c[0]!.logTime < at(3000); c = erp.claim(1000))
      erp.settle(c.map((p) => ({ id: p.id, kind: 'delivered' as const })));
    const erpRefused = erp.claim(20);
    erp.settle(erpRefused.map((p) => ({ id: p.id, kind: 'rejected' as const, message: 'Employee not found' })));
    journal.ingest([{ terminal: 'gate-1', biometricCode: '7', logTime: '2099-01-01 00:00:00' }]); // quarantined
  });
  afterAll(() => {
    journal.close();
    tmp.cleanup();
  });

  it('the journal holds punches in every state, counted as the table holds them', () => {
    const table = Object.fromEntries(
      (
        journal.db.prepare(`SELECT state, count(*) AS n FROM punches GROUP BY state`).all() as {
          state: string;
          n: number;
        }[]
      ).map((r) => [r.state, r.n]),
    );
    const { not_routed: notRouted, ...rest } = table;
    expect(journal.counts()).toEqual({
      pending: 0,
      rejected: 0,
      dead: 0,
      quarantined: 0,
      inflight: 0,
      notRouted,
      ...rest,
    });
    for (const s of ['pending', 'inflight', 'delivered', 'rejected', 'dead', 'quarantined', 'not_routed'])
      expect(table[s], s).toBeGreaterThan(0);
  });

  it('the status report (status log, `punchgate status`, the page) reads no whole table', async () => {
    const ran = await capture(journal.db, () => buildStatus(journal, config, clock.now(), { freeBytes: 1 }));
    expect(ran.length).toBeGreaterThan(5);
    expect(ran.some((r) => /punch_totals/.test(r.sql))).toBe(true);
    expect(fullScans(journal.db, ran)).toEqual([]);
  });

  it('/metrics and the page charts read no whole table (the totals at start included)', async () => {
    const reports = new LatestReport(
      () => buildStatus(journal, config, clock.now(), { freeBytes: 1 }),
      () => clock.now(),
    );
    const ran = await capture(journal.db, async () => {
      const totals = new JournalTotals(journal.queries);
      const metrics = new PunchgateMetrics({ journal, config: () => config, reports, totals, clock, version: 't' });
      await metrics.text();
      journal.hourly.series(clock.now());
    });
    expect(ran.length).toBeGreaterThan(5);
    expect(fullScans(journal.db, ran)).toEqual([]);
  });

  it('`punchgate check` reads no whole table (its journal check, ledger, refusals and push state; quick_check aside)', async () => {
    const path = tmp.path('j.db');
    const names = config.terminals.map((t) => t.name);
    const ran = await capture(journal.db, () => {
      expect(checkJournal(path, { quick: true }).status).not.toBe('fail'); // warn: the journal holds refused punches
      checkJournal(path, { quick: false });
      readTerminalLedger(path);
      readAuthRefusals(path, names);
      readPushState(path, clock.now());
      readListenStates(path, names);
    });
    expect(ran.some((r) => /punch_counts|punch_totals/.test(r.sql))).toBe(true);
    // quick_check reads every page on purpose (the admin asked for an integrity check): a PRAGMA, not looked at here.
    expect(fullScans(journal.db, ran)).toEqual([]);
  });

  it("the daemon's journal open (stale claims, punches filed by name moved to their terminal's device) reads no whole table", async () => {
    const path = tmp.path('j.db');
    expect(journal.db.prepare(`SELECT count(*) AS n FROM terminal_devices`).get()).toEqual({ n: 1 });
    expect(journal.db.prepare(`SELECT 1 FROM punches WHERE device = '' LIMIT 1`).get()).toBeDefined();
    journal.close();
    // A second connection to look with while the daemon's side opens and closes.
    const look = new Database(path, { readonly: true });
    try {
      const ran = await capture(look, () => {
        journal = Journal.open({ path, site: 'plant-a', clock, mode: 'owner', deadAfterAttempts: 2 });
      });
      expect(ran.some((r) => /FROM punches r JOIN punches t/.test(r.sql))).toBe(true);
      expect(fullScans(look, ran)).toEqual([]);
    } finally {
      look.close();
    }
  });

  it('the check finds a full scan when there is one (the test can fail)', async () => {
    const ran = await capture(journal.db, () =>
      journal.db.prepare(`SELECT count(*) FROM punches WHERE state = 'delivered'`).get(),
    );
    expect(fullScans(journal.db, ran)).toHaveLength(1);
  });
});
