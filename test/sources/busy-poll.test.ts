/**
 * A poll of a ZK or a Hikvision terminal while another process holds the journal's write lock
 * (a second connection stands in for it: SQLite locks each connection apart). The poll fails as
 * "journal busy", which is not the terminal's trouble: its ledger state is left as it was and no
 * ticks are skipped (noBackoff). Once the lock is gone, the next poll journals every punch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import { BUSY_JOURNAL_POLL_ERROR } from '../../src/sources/poll-outcome.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { silentLogger } from '../../src/util/logger.js';
import { tempDir } from '../helpers/tmp.js';
import { expectedPunches, hikConfig, passwordEnv, startSim } from '../hikvision/helpers.js';
import { zkConfig } from '../zk-source/helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A journal that gives up on a held lock after 100 ms, and a second connection that can hold it. */
function lockedJournal() {
  const tmp = tempDir('punchgate-busy-poll-');
  const journal = Journal.open({
    path: tmp.path('journal.db'),
    site: 'test',
    mode: 'owner',
    busyTimeoutMs: 100,
    futureToleranceMinutes: 60 * 24 * 365 * 50,
  });
  const other = new Database(tmp.path('journal.db'), { timeout: 0 });
  cleanups.push(() => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    journal.close();
    tmp.cleanup();
  });
  return { journal, other, deps: sourceDepsFor(journal, silentLogger(), { now: () => Date.now() }) };
}

describe('a poll while the journal is busy', () => {
  it('ZK: fails as journal busy without marking the terminal, then the next poll journals all 300 punches', async () => {
    const sim = await startTerminalSim({
      serialNumber: 'SN-BUSY',
      generate: { users: 10, punches: 300, startTime: '2026-01-05 08:00:00', seed: 3 },
    });
    cleanups.push(() => sim.stop());
    const { journal, other, deps } = lockedJournal();
    const cfg = zkConfig(sim.port);

    other.exec('BEGIN IMMEDIATE');
    const busy = await pollTerminal(cfg, deps);
    expect(busy).toMatchObject({ ok: false, noBackoff: true, error: BUSY_JOURNAL_POLL_ERROR });
    other.exec('ROLLBACK');
    expect(journal.terminals.get('gate-1')?.lastError ?? null).toBeNull();
    expect(journal.counts().pending).toBe(0);

    const next = await pollTerminal(cfg, deps);
    expect(next).toMatchObject({ ok: true, added: 300 });
    expect(journal.counts().pending).toBe(300);
    expect(journal.terminals.get('gate-1')).toMatchObject({ online: true, lastError: null });
  });

  it('Hikvision: fails as journal busy without marking the terminal, then the next poll journals every pass', async () => {
    const sim = await startSim(200);
    cleanups.push(() => sim.stop());
    const { journal, other, deps } = lockedJournal();
    const poller = new HikvisionPoller(hikConfig(sim), deps, undefined, passwordEnv());
    cleanups.push(() => poller.close());

    other.exec('BEGIN IMMEDIATE');
    const busy = await poller.poll();
    expect(busy).toMatchObject({ ok: false, noBackoff: true, authRefused: false, error: BUSY_JOURNAL_POLL_ERROR });
    other.exec('ROLLBACK');
    expect(journal.terminals.get('reception')?.lastError ?? null).toBeNull();

    const next = await poller.poll();
    expect(next.ok).toBe(true);
    const expected = expectedPunches(sim.events());
    expect(expected.length).toBe(200);
    expect(journal.counts().pending).toBe(200);
    expect(journal.terminals.get('reception')).toMatchObject({ online: true, lastError: null });
  });
});
