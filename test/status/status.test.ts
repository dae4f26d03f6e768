import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { StatusLog } from '../../src/daemon/status-log.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { silentLogger } from '../../src/util/logger.js';
import { renderPage } from '../../src/web/page.js';
import { Secrets } from '../../src/util/secrets.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const HOUR = 3_600_000;

describe('status report and status log', () => {
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
          { name: 'door', kind: 'serial', path: '/dev/ttyUSB0', format: 'card' },
        ],
      },
      tmp.dir,
    );

  beforeEach(() => {
    process.env.TZ = 'UTC';
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  it('is quiet when all is well', () => {
    journal.terminals.update('gate-1', {
      online: true,
      lastPollAt: clock.now(),
      serial: 'A',
      skewSeconds: 3,
      records: 10,
      users: 4,
    });
    journal.deliveryState.update({ auth: 'ok', lastSuccessAt: clock.now(), lastResult: '1 sent: 1 delivered' });
    const r = buildStatus(journal, config(), clock.now());
    expect(r.alerts).toEqual([]);
    const text = formatStatus(r);
    expect(text).toContain('No alerts.');
    expect(text).toMatch(
      /gate-1\s+online\s+last poll 2026-11-22 12:00:00 \+00:00\s+clock \+3 s\s+records 10\s+users 4/,
    );
    expect(text).toMatch(/gate-2\s+not polled yet/);
    expect(text).toContain('HRMS: token accepted');
    expect(text).toContain('last success: 2026-11-22 12:00:00 +00:00 (1 sent: 1 delivered)');
  });

  it('writes every line with its control characters escaped, whichever field of the report they came in', () => {
    journal.terminals.update('gate-1', { online: true, lastPollAt: clock.now(), serial: 'A' });
    const r = buildStatus(journal, config(), clock.now());
    // Fields the text quotes without a bound of their own (names, the oldest punch's terminal).
    r.terminals[0]!.name = 'gate\u001b[2J\nFORGED';
    r.oldestPending = {
      logTime: '2026-11-22 08:00:00',
      terminal: 'x\u202e\r\nPASS',
      queuedAt: '2026-11-22T08:00:00Z',
    } as never;
    const text = formatStatus(r);
    expect(text).toContain('gate\\x1b[2J\\x0aFORGED');
    expect(text).toContain('from x\\u202e\\x0d\\x0aPASS');
    // eslint-disable-next-line no-control-regex -- no raw control character may reach the text
    expect(text.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });

  it("puts the last attempt's result on the line of what it was: a failure after a success is not shown as the success's", () => {
    journal.deliveryState.update({
      auth: 'ok',
      lastSuccessAt: clock.now() - 60_000,
      lastResult: '3 sent: 3 delivered',
    });
    journal.deliveryState.update({
      lastError: 'HTTP 503 Service Unavailable',
      lastErrorAt: clock.now(),
      lastResult: '3 not delivered: temporary failure',
      failingSince: clock.now(),
    });
    const r = buildStatus(journal, config(), clock.now());
    const text = formatStatus(r);
    expect(text).toContain('  last success: 2026-11-22 11:59:00 +00:00\n');
    expect(text).toContain(
      '  last error: 2026-11-22 12:00:00 +00:00: HTTP 503 Service Unavailable (3 not delivered: temporary failure)\n',
    );
    // The page says the same: the result beside the error, not beside the success.
    const page = renderPage(r, { version: '0', uptimeSeconds: 60, zone: 'UTC', refreshSeconds: 10 });
    const success = /<dt>last success<\/dt>\s*<dd>([\s\S]*?)<\/dd>/.exec(page)?.[1] ?? '';
    const error = /<dt>last error<\/dt>\s*<dd>([\s\S]*?)<\/dd>/.exec(page)?.[1] ?? '';
    expect(success).not.toContain('not delivered');
    expect(error).toContain('3 not delivered: temporary failure');
  });

  it('with punchgate run stopped, says what it last saw as of then, not as if it had gone on watching', () => {
    // The daemon stopped at 09:00 after two hours of an unreachable terminal and failing delivery;
    // `punchgate status` runs at 12:00 (found by a trial: "unreachable for 10 min" grew with the clock).
    const stoppedAt = clock.now() - 3 * HOUR;
    journal.terminals.update('gate-2', {
      online: false,
      lastPollAt: stoppedAt - 30_000,
      offlineSince: stoppedAt - 2 * HOUR,
      lastError: 'no reply from 10.0.0.2:4370',
    });
    journal.deliveryState.update({
      lastError: 'HTTP 503 Service Unavailable',
      lastErrorAt: stoppedAt,
      failingSince: stoppedAt - HOUR,
    });
    const daemon = { running: false, statusLogAt: stoppedAt, stale: true };
    const r = buildStatus(journal, config(), clock.now(), { daemon });
    const kinds = r.alertItems.map((a) => a.kind);
    expect(kinds).toEqual(['daemon-down', 'delivery-failing', 'terminal-unreachable']);
    const [, failing, unreachable] = r.alertItems;
    expect(failing!.cause).toMatch(/^delivery was failing for 1 h when punchgate run stopped: /);
    expect(failing!.fix).not.toContain('next try at');
    expect(unreachable!.cause).toMatch(
      /^terminal gate-2 was unreachable for 1 h at its last poll, 2026-11-22 08:59:30 \+00:00 \(no reply from 10\.0\.0\.2:4370\); nobody polls it while punchgate run is stopped/,
    );

    // Claims a killed daemon left: said as such, not as punches on the wire.
    journal.ingest([{ terminal: 'gate-1', biometricCode: '5', logTime: '2026-11-22 07:00:00' }]);
    journal.claim(1);
    expect(formatStatus(buildStatus(journal, config(), clock.now(), { daemon }))).toContain(
      'in flight 1 (punchgate run is stopped: back in the queue at its next start, unless a punchgate flush is sending them)',
    );

    // A terminal offline only briefly before the stop is no alert, however long the stop lasts.
    journal.terminals.update('gate-2', { offlineSince: stoppedAt - 60_000 });
    const brief = buildStatus(journal, config(), clock.now(), { daemon });
    expect(brief.alertItems.map((a) => a.kind)).not.toContain('terminal-unreachable');

    // Running, the same records are measured to now, as before.
    const running = buildStatus(journal, config(), clock.now(), {
      daemon: { running: true, statusLogAt: clock.now(), stale: false },
    });
    expect(running.alerts.join('\n')).toMatch(/delivery failing for 4 h: /);
    expect(running.alerts.join('\n')).toMatch(/terminal gate-2 unreachable for 3 h \(no reply/);
  });

  it('a swapped device is an alert for a day after the swap, then only the terminals list says it', () => {
    // Found by a site admin's trial: a broken terminal replaced on purpose (the docs: "nothing to
    // do") kept its "now answers with serial" alert for ever; nothing could end it.
    journal.terminals.update('gate-1', {
      online: true,
      lastPollAt: clock.now(),
      serial: 'NEW',
      previousSerial: 'OLD',
      serialChangedAt: clock.now(),
    });
    const swapped = (r: ReturnType<typeof buildStatus>) =>
      r.alerts.filter((a) => a.includes('now answers with serial'));
    expect(swapped(buildStatus(journal, config(), clock.now()))).toEqual([
      'terminal gate-1 now answers with serial NEW instead of OLD since 2026-11-22 12:00:00 +00:00: device swapped or address changed (its punches are kept apart): if the device was replaced on purpose, nothing is lost, and this alert ends a day after the swap; otherwise check its host in the config (two terminals may have swapped addresses)',
    ]);
    clock.advance(24 * HOUR - 1000);
    journal.terminals.update('gate-1', { lastPollAt: clock.now() });
    expect(swapped(buildStatus(journal, config(), clock.now()))).toHaveLength(1);
    clock.advance(2000);
    journal.terminals.update('gate-1', { lastPollAt: clock.now() });
    const later = buildStatus(journal, config(), clock.now());
    expect(swapped(later)).toEqual([]);
    expect(later.terminals.find((t) => t.name === 'gate-1')?.previousSerial).toBe('OLD');
  });

  it('says what is wrong in plain words', () => {
    journal.deliveryState.update({
      auth: 'failed',
      authFailedSince: Date.UTC(2026, 10, 22, 9, 12),
      lastError: 'Bearer token is not correct',
      lastErrorAt: clock.now(),
    });
    journal.terminals.update('gate-2', {
      online: false,
      lastPollAt: clock.now(),
      offlineSince: clock.now() - 3 * HOUR,
      lastError: 'no reply from 10.0.0.2:4370',
    });
    journal.terminals.update('gate-1', {
      online: true,
      lastPollAt: clock.now(),
      serial: 'NEW',
      previousSerial: 'OLD',
      skewSeconds: -600,
    });
    journal.ingest([
      ...Array.from({ length: 14 }, (_, i) => ({
        terminal: 'gate-1',
        biometricCode: '1042',
        logTime: `2026-11-22 08:${String(i).padStart(2, '0')}:00`,
      })),
      { terminal: 'gate-1', biometricCode: '7', logTime: '1999-01-01 00:00:00' },
      { terminal: 'door', biometricCode: 'card:0004521236', logTime: '2026-11-22 09:00:00' },
    ]);
    journal.settle(
      journal.claim(14).map((p) => ({ id: p.id, kind: 'rejected' as const, message: 'Unknown biometric code 1042' })),
    );
    const r = buildStatus(journal, config(), clock.now());
    expect(r.alerts).toEqual([
      // The key and the file it names, as `punchgate check` says (never the token).
      `HRMS refuses the token since 2026-11-22 09:12:00 +00:00: put a valid token in the file hrms.tokenFile names (${tmp.path('token')}), or in PUNCHGATE_HRMS_TOKEN (the file is re-read without a restart)`,
      'terminal gate-1 now answers with serial NEW instead of OLD: device swapped or address changed (its punches are kept apart): if the device was replaced on purpose, nothing is lost, and this alert ends a day after the swap; otherwise check its host in the config (two terminals may have swapped addresses)',
      'terminal gate-1: its clock is 10 min behind the box (-600 s); likely it drifted or was set by hand. Its punches are delivered with the times it recorded: set syncClock: true for gate-1 so that punchgate sets its clock at each poll, or set it by hand; if it shows the right time for another zone, set timezone for gate-1 in the config to the zone it runs in',
      // A cause recorded without a fix (an older punchgate): the fix for its kind.
      "terminal gate-2 unreachable for 3 h (no reply from 10.0.0.2:4370): its punches wait on the terminal: check the terminal's power and cable and its host (10.0.0.2) in the config; punchgate check tests it and says more",
      '14 punches refused: employee not found for code 1042: add the employee in the HRMS, then `punchgate punches retry`',
      '1 punch quarantined (implausible time): check the terminal clocks, then punchgate punches release',
      // Delivered or not, with the newest card (this reader has no code map: the card needs a user).
      'terminal door: 1 punch from 1 card not in the code map in the last 7 days (newest card:0004521236 at 2026-11-22 09:00): 1 waits in the journal: give the cards a user with an employee number on the terminal; the waiting ones keep card:<number> (the HRMS takes them only under that code)',
    ]);
    const text = formatStatus(r);
    expect(text).toContain('ALERTS');
    expect(text).toContain('HRMS: AUTH FAILED');
    expect(text).toMatch(/gate-2\s+OFFLINE/);
    // Under the terminals, each one's trouble with what to try.
    expect(text).toContain("    gate-2: no reply from 10.0.0.2:4370: check the terminal's power and cable");
    expect(text).toContain('rejected 14   dead 0   quarantined 1');
    expect(r.punches).toMatchObject({ pending: 1, rejected: 14, quarantined: 1 });
    expect(r.terminals.map((t) => t.name)).toEqual(['gate-1', 'gate-2', 'door']);
  });

  // A new-user trial: a terminal never reached showed "OFFLINE  last poll <time>" in punchgate
  // status, read as one that once answered, while the page said "last contact: never".
  it('a terminal never reached says "last contact never", as the page does; one reached before, when', () => {
    journal.terminals.update('gate-2', {
      online: false,
      lastPollAt: clock.now(),
      offlineSince: clock.now() - HOUR,
      lastError: 'no reply from 10.0.0.2:4370',
    });
    journal.terminals.update('gate-1', {
      online: false,
      lastPollAt: clock.now(),
      lastSuccessAt: clock.now() - 2 * HOUR,
      offlineSince: clock.now() - HOUR,
      lastError: 'no reply from 10.0.0.1:4370',
    });
    const r = buildStatus(journal, config(), clock.now());
    const text = formatStatus(r);
    expect(text).toContain('gate-2           OFFLINE  last contact never  last poll 2026-11-22 12:00:00 +00:00');
    expect(text).toContain(
      'gate-1           OFFLINE  last contact 2026-11-22 10:00:00 +00:00  last poll 2026-11-22 12:00:00 +00:00',
    );
    const page = renderPage(r, { version: '0', uptimeSeconds: 1, zone: 'UTC', refreshSeconds: 10 });
    expect(page).toMatch(/<td data-label="last contact"><span class="muted">never<\/span><\/td>/);
  });

  it('the status log is rewritten in place and never shows a secret', () => {
    const secrets = new Secrets();
    secrets.add('s3cret-token-value');
    journal.deliveryState.update({ lastError: 'echo s3cret-token-value', lastErrorAt: clock.now() });
    const path = tmp.path('status.txt');
    const log = new StatusLog(path, () => buildStatus(journal, config(), clock.now()), {
      logger: silentLogger(),
      secrets,
    });
    log.start(0);
    const first = readFileSync(path, 'utf8');
    expect(first).toContain('last error: 2026-11-22 12:00:00 +00:00: echo [REDACTED]');
    journal.ingest([{ terminal: 'gate-1', biometricCode: '1', logTime: '2026-11-22 08:00:00' }]);
    log.write();
    expect(readFileSync(path, 'utf8')).toContain('pending 1');
    log.stop();
  });
  it("the interval's write takes three turns (report, status.json, status log); a write meanwhile drops the rest", async () => {
    const secrets = new Secrets();
    const path = tmp.path('status.txt');
    const turns: string[] = [];
    const log = new StatusLog(
      path,
      () => {
        turns.push('status report');
        return buildStatus(journal, config(), clock.now());
      },
      { logger: silentLogger(), secrets, run: (label, fn) => (turns.push(label), fn()) },
    );
    log.writeInSteps();
    // Work that came meanwhile (a push terminal's POST) runs between the steps.
    setImmediate(() => turns.push('other work'));
    await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    expect(turns).toEqual(['status report', 'status log (status.json)', 'other work', 'status log (status.txt)']);
    expect(readFileSync(path, 'utf8')).toContain('plant-a');
    expect(JSON.parse(readFileSync(tmp.path('status.json'), 'utf8')).site).toBe('plant-a');

    // A write in steps overtaken by a write now (a reload) or a stop writes nothing more.
    journal.ingest([{ terminal: 'gate-1', biometricCode: '1', logTime: '2026-11-22 08:00:00' }]);
    log.write();
    const now = readFileSync(path, 'utf8');
    expect(now).toContain('pending 1');
    turns.length = 0;
    journal.ingest([{ terminal: 'gate-1', biometricCode: '2', logTime: '2026-11-22 08:01:00' }]);
    log.writeInSteps(); // its report has 2 pending
    log.stop();
    await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    expect(turns).toEqual(['status report']);
    expect(readFileSync(path, 'utf8')).toBe(now);
  });
});
