import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { renderPage } from '../../src/web/page.js';
import { spawnDaemon, startStack, statusUrl } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const MIN = 60_000;
const INFO = { version: '1.2.3', uptimeSeconds: 3600, zone: 'UTC', refreshSeconds: 10 };

/**
 * The summary line above the details never contradicts them: no "No alerts." (text) or "All
 * good" (page) while a terminal row says OFFLINE or the delivery row says FAILING, AUTH FAILED or
 * NO TOKEN, whatever the time since it began (the alerts themselves wait: a blip is no alert).
 */
describe('the status summary says what the rows show', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let journal: Journal;
  const config = () =>
    parseConfig(
      {
        site: 'plant-a',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        terminals: [
          { name: 'gate-1', kind: 'zk', host: '10.0.0.1' },
          { name: 'gate-2', kind: 'zk', host: '10.0.0.2' },
        ],
      },
      tmp.dir,
    );

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
    for (const name of ['gate-1', 'gate-2']) journal.terminals.update(name, { online: true, lastPollAt: clock.now() });
    journal.deliveryState.update({ auth: 'ok', lastSuccessAt: clock.now(), lastResult: '1 sent: 1 delivered' });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  const outputs = () => {
    const r = buildStatus(journal, config(), clock.now());
    return { r, text: formatStatus(r), page: renderPage(r, INFO) };
  };

  it('all well: "No alerts." and "All good"', () => {
    const { text, page } = outputs();
    expect(text).toContain('\nNo alerts.\n');
    expect(page).toContain('All good: no alerts');
  });

  it('a terminal offline from its first second to past the alert: never "No alerts." above OFFLINE', () => {
    journal.terminals.update('gate-2', { online: false, offlineSince: clock.now(), lastPollAt: clock.now() });
    for (let minute = 0; minute <= 7; minute++) {
      const { r, text, page } = outputs();
      expect(text, `minute ${minute}`).toMatch(/gate-2\s+OFFLINE/);
      expect(text, `minute ${minute}`).not.toContain('No alerts.');
      expect(page, `minute ${minute}`).not.toContain('All good');
      if (r.alerts.length === 0) {
        expect(text).toContain(
          `Not all well (no alert yet): gate-2 OFFLINE for ${minute === 0 ? '0 s' : `${minute} min`} (an alert at 5 min)`,
        );
        expect(page).toContain('Not all well (no alert yet): gate-2 OFFLINE');
      } else {
        expect(minute).toBeGreaterThanOrEqual(5);
        expect(text).toContain('\nALERTS\n');
      }
      clock.advance(MIN);
      journal.terminals.update('gate-1', { online: true, lastPollAt: clock.now() });
    }
  });

  it('an older alert up: what no alert says yet is still said at the top, and nothing an alert says is said twice', () => {
    // Found by a new-user trial: with a day-old alert up, the HRMS down and every terminal OFFLINE
    // were in the rows only; the top said "2 alerts", both about other things.
    journal.ingest([{ terminal: 'gate-1', biometricCode: '7', logTime: '2027-06-01 08:00:00' }]);
    journal.terminals.update('gate-2', { online: false, offlineSince: clock.now() - 2 * MIN, lastPollAt: clock.now() });
    journal.deliveryState.update({ failingSince: clock.now() - MIN, lastError: 'HTTP 503', lastErrorAt: clock.now() });
    const { r, text, page } = outputs();
    expect(r.alertItems.map((a) => a.kind)).toEqual(expect.arrayContaining([expect.stringMatching(/quarantine/)]));
    expect(r.alertItems.some((a) => a.kind === 'delivery-failing' || a.kind === 'terminal-unreachable')).toBe(false);
    const also = 'also not well (no alert yet): gate-2 OFFLINE for 2 min (an alert at 5 min); HRMS delivery FAILING';
    expect(text).toContain(`\nALERTS; ${also}\n`);
    expect(page).toContain(also);
    // Past their alerts' time: said by the alerts, not twice.
    clock.advance(15 * MIN);
    journal.terminals.update('gate-1', { online: true, lastPollAt: clock.now() });
    const later = outputs();
    expect(later.r.alertItems.map((a) => a.kind)).toEqual(
      expect.arrayContaining(['terminal-unreachable', 'delivery-failing']),
    );
    expect(later.text).toContain('\nALERTS\n');
    expect(later.page).not.toContain('also not well');
  });

  it('delivery failing, the token refused or missing: never "No alerts." above the delivery row that says so', () => {
    const states = [
      { failingSince: clock.now(), lastError: 'HTTP 503', lastErrorAt: clock.now() },
      { auth: 'failed' as const, authFailedSince: clock.now(), lastError: 'HRMS refused the token: 401' },
      { auth: 'failed' as const, authFailedSince: clock.now(), lastError: 'no usable HRMS token: none' },
    ];
    for (const s of states) {
      journal.deliveryState.update(s);
      const { r, text, page } = outputs();
      expect(text).toMatch(/HRMS: (FAILING|AUTH FAILED|NO TOKEN)/);
      expect(text, s.lastError).not.toContain('No alerts.');
      expect(page, s.lastError).not.toContain('All good');
      if (r.alerts.length === 0)
        expect(text).toMatch(/Not all well \(no alert yet\): HRMS delivery (FAILING|AUTH FAILED|NO TOKEN)/);
    }
  });
});

describe('the summary and a second sink', () => {
  it('a sink under Sinks failing before its alert is due: never "No alerts." or "All good" above its row', () => {
    const tmp = tempDir();
    const clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    const journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
    try {
      const config = parseConfig(
        {
          site: 'plant-a',
          journal: { path: tmp.path('j.db') },
          hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
          sinks: [{ name: 'payroll', kind: 'hrms', baseUrl: 'https://payroll.example.com', tokenFile: 'token-b' }],
          terminals: [{ name: 'gate-1', kind: 'zk', host: '10.0.0.1' }],
        },
        tmp.dir,
      );
      journal.terminals.update('gate-1', { online: true, lastPollAt: clock.now() });
      journal.deliveryState.update({ auth: 'ok', lastSuccessAt: clock.now(), lastResult: '1 sent: 1 delivered' });
      const sink = journal.deliveryStateOf('payroll');
      sink.update({ auth: 'ok', lastSuccessAt: clock.now(), lastResult: '1 sent: 1 delivered' });
      const shown = () => {
        const r = buildStatus(journal, config, clock.now());
        return { r, text: formatStatus(r), page: renderPage(r, INFO) };
      };
      expect(shown().text).toContain('\nNo alerts.\n');
      // Failing for a minute: the alert waits for delivery.alertAfterMinutes, the summary does not.
      sink.update({ failingSince: clock.now() - MIN, lastError: 'HTTP 503', lastErrorAt: clock.now() });
      const failing = shown();
      expect(failing.r.alerts).toEqual([]);
      expect(failing.text).toMatch(/payroll .*FAILING/);
      expect(failing.text).toContain('Not all well (no alert yet): sink payroll delivery FAILING');
      expect(failing.page).toContain('Not all well (no alert yet): sink payroll delivery FAILING');
      expect(failing.page).not.toContain('All good');
      // The main HRMS failing too: both said.
      journal.deliveryState.update({ failingSince: clock.now(), lastError: 'HTTP 503', lastErrorAt: clock.now() });
      expect(shown().text).toContain('HRMS delivery FAILING; sink payroll delivery FAILING');
    } finally {
      journal.close();
      tmp.cleanup();
    }
  });
});

describe('the status of a real daemon whose terminal just went away', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('status, status.txt and the page say it is offline at once, and never "No alerts."', async () => {
    const stack = await startStack({ terminals: 0 });
    cleanups.push(() => stack.stop());
    const sim = await startTerminalSim({ serialNumber: 'SN-1', commKey: 808080, users: [], punches: [] });
    stack.writeConfig([sim], (c) => {
      (c.terminals[0] as Record<string, unknown>).realtime = false;
    });
    const d = spawnDaemon(stack.configPath);
    cleanups.push(async () => {
      d.child.kill('SIGTERM');
      await d.exited;
    });
    const url = await statusUrl(d);
    const status = async () => (await runPunchgate(['--config', stack.configPath, 'status'])).stdout;
    await waitFor(async () => /gate-1\s+online/.test(await status()), 20_000, 'gate-1 online');
    expect(await status()).toContain('\nNo alerts.\n');

    await sim.stop();
    await waitFor(async () => /gate-1\s+OFFLINE/.test(await status()), 20_000, 'gate-1 OFFLINE');
    const text = await status();
    expect(text).not.toContain('No alerts.');
    // Seconds after it went offline: said in seconds, not rounded up to a minute (new-user trial).
    expect(text).toMatch(/Not all well \(no alert yet\): gate-1 OFFLINE for (\d+ s|1 min) \(an alert at 5 min\)/);
    const page = await (await fetch(url)).text();
    expect(page).toContain('Not all well (no alert yet): gate-1 OFFLINE');
    expect(page).not.toContain('All good');
    await waitFor(() => /OFFLINE/.test(readStatusLog(stack.tmp.path('status.txt'))), 10_000, 'status.txt');
    expect(readStatusLog(stack.tmp.path('status.txt'))).not.toContain('No alerts.');
  }, 60_000);
});

function readStatusLog(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
