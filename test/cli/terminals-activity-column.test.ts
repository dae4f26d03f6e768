import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { cliSandbox } from '../helpers/cli.js';

/**
 * `punchgate terminals` headed its time column "LAST POLL" for every kind, and said "unknown"
 * before the first one. A serial reader is read when someone badges and a push terminal calls
 * this box: neither is polled, and an admin went looking for a poll interval they do not have.
 * The column now says what its times are, in the status row's words (activity-words.ts).
 */
describe('punchgate terminals: the time column of readers and push terminals', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((c) => c()));

  function sandbox(terminals: Record<string, unknown>[]) {
    const push = terminals.some((t) => t.kind === 'adms');
    const s = cliSandbox({ terminals, ...(push ? { adms: { listen: '127.0.0.1:0' } } : {}) });
    cleanups.push(() => s.tmp.cleanup());
    return s;
  }

  it('a serial reader alone: LAST READ, and "not opened yet" before its device was opened', async () => {
    const s = sandbox([
      { name: 'door', kind: 'serial', path: '/dev/ttyUSB0', format: 'card' },
      { name: 'canteen', kind: 'serial', path: '/dev/ttyUSB1', format: 'card' },
    ]);
    const j = Journal.open({ path: s.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    j.terminals.update('door', {
      online: true,
      lastPollAt: Date.UTC(2026, 10, 22, 12),
      lastSuccessAt: Date.UTC(2026, 10, 22, 12),
    });
    j.close();
    const r = await s.cli('terminals');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^NAME +KIND +STATE +LAST READ +SKEW/);
    expect(r.stdout).not.toContain('POLL');
    expect(r.stdout).toMatch(/canteen +serial +not opened yet +never/);
  });

  it('mixed kinds: each time says what it is (poll, read, call)', async () => {
    const s = sandbox([
      { name: 'gate-1', kind: 'zk', host: '10.0.0.1' },
      { name: 'door', kind: 'serial', path: '/dev/ttyUSB0', format: 'card' },
      { name: 'lobby', kind: 'adms', serial: 'CQZ7231' },
    ]);
    const at = Date.UTC(2026, 10, 22, 12);
    const j = Journal.open({ path: s.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    j.terminals.update('gate-1', { online: true, lastPollAt: at, lastSuccessAt: at });
    j.terminals.update('door', { online: true, lastPollAt: at, lastSuccessAt: at });
    j.close();
    const r = await s.cli('terminals');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^NAME +KIND +STATE +LAST POLL \/ READ \/ CALL +SKEW/);
    expect(r.stdout).toMatch(/gate-1 +zk +online +poll \d{4}-/);
    expect(r.stdout).toMatch(/door +serial +online +read \d{4}-/);
    expect(r.stdout).toMatch(/lobby +adms +no call yet +call never/);
  });
});
