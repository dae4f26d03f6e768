import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { renderPage } from '../../src/web/page.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * A serial reader is never polled: it sends a line (or a card frame) when someone badges. Its row
 * in the status and on the page said "last poll" and "not polled yet", which sent an admin looking
 * for a poll interval it does not have.
 */
describe("a serial reader's row", () => {
  let tmp: ReturnType<typeof tempDir>;
  let journal: Journal;
  const clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  beforeEach(() => {
    process.env.TZ = 'UTC';
    tmp = tempDir();
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  const config = (withZk: boolean) =>
    parseConfig(
      {
        site: 'plant-a',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        terminals: [
          ...(withZk ? [{ name: 'gate-1', kind: 'zk', host: '10.0.0.1' }] : []),
          { name: 'door', kind: 'serial', path: '/dev/ttyUSB0', format: 'card' },
          { name: 'canteen', kind: 'serial', path: '/dev/ttyUSB1', format: 'card' },
        ],
      },
      tmp.dir,
    );
  const page = (withZk: boolean) =>
    renderPage(buildStatus(journal, config(withZk), clock.now()), {
      version: '0',
      uptimeSeconds: 60,
      zone: 'UTC',
      refreshSeconds: 10,
    });

  it('says its last read, or that its device was not opened yet, never a poll', () => {
    journal.terminals.update('door', { online: true, lastPollAt: clock.now(), lastSuccessAt: clock.now() });
    journal.terminals.update('gate-1', { online: true, lastPollAt: clock.now(), lastSuccessAt: clock.now() });
    const text = formatStatus(buildStatus(journal, config(true), clock.now()));
    expect(text).toMatch(/door\s+online\s+last read 2026-11-22 12:00:00/);
    expect(text).toMatch(/canteen\s+not opened yet\s+last read never/);
    expect(text).toMatch(/gate-1\s+online\s+last poll 2026-11-22 12:00:00/);
    expect(text).not.toMatch(/(door|canteen).*(poll)/);

    const serialOnly = page(false);
    expect(serialOnly).toContain('<th>last read</th>');
    expect(serialOnly).toContain('data-label="last read"');
    expect(serialOnly).not.toContain('last poll');
    const mixed = page(true);
    expect(mixed).toContain('<th>last poll / read</th>');
    expect(mixed).toContain('data-label="last poll"');
    expect(mixed).toContain('data-label="last read"');
  });
  it('with punchgate run stopped, says it was unreachable at its last read, and that nobody reads it', () => {
    const stoppedAt = clock.now() - 3 * 3_600_000;
    journal.terminals.update('door', {
      online: false,
      lastPollAt: stoppedAt - 30_000,
      offlineSince: stoppedAt - 2 * 3_600_000,
      lastError: 'no such device /dev/ttyUSB0',
    });
    const daemon = { running: false, statusLogAt: stoppedAt, stale: true };
    const r = buildStatus(journal, config(false), clock.now(), { daemon });
    const unreachable = r.alertItems.find((a) => a.kind === 'terminal-unreachable');
    expect(unreachable?.cause).toMatch(
      /^terminal door was unreachable for 1 h at its last read, 2026-11-22 08:59:30 \+00:00 \(.*\); nobody reads it while punchgate run is stopped/,
    );
    expect(unreachable?.cause).not.toContain('poll');
  });
});
