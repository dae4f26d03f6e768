import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyResponse } from '../../src/hrms/attendance.js';
import { Journal } from '../../src/journal/index.js';
import { hrmsOutcome } from '../../src/metrics/hrms-outcome.js';
import { JournalTotals } from '../../src/metrics/journal-totals.js';
import type { StatusReport } from '../../src/status/index.js';
import { LatestReport } from '../../src/status/latest.js';
import { boxZoneLabel } from '../../src/util/box-zone.js';
import { punchgateVersion } from '../../src/util/version.js';
import { PAGE_CSP, renderPage } from '../../src/web/page.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const AUTH = [/bearer token/i];

describe('hrmsOutcome: the HRMS client answers, mapped to the metric outcomes', () => {
  const punches = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      biometriccode: `10${i}`,
      logDate: '2026-11-22 08:00:00',
      devicelogId: `s-${i}`,
    }));
  const outcome = (status: number, body: string, sent = 2) =>
    hrmsOutcome(classifyResponse({ status, headers: {}, text: body }, punches(sent), { authPatterns: AUTH }), sent);

  it('maps each kind of answer', () => {
    const ok = JSON.stringify({ Status: true, Payload: [{ status: true }, { status: false, message: 'Unknown' }] });
    expect(outcome(200, ok)).toBe('ok');
    expect(outcome(200, JSON.stringify({ Status: false, message: 'Bearer token is not correct' }))).toBe(
      'token_refused',
    );
    expect(outcome(401, '')).toBe('token_refused');
    expect(outcome(503, 'down')).toBe('http_error');
    expect(outcome(500, '{}')).toBe('http_error');
    expect(outcome(429, '')).toBe('http_error');
    expect(outcome(413, '')).toBe('http_error');
    expect(outcome(400, JSON.stringify({ Status: false, message: 'bad' }))).toBe('http_error');
    expect(outcome(404, 'no such path')).toBe('http_error');
    expect(outcome(200, JSON.stringify({ Status: false, message: 'not a valid group' }))).toBe('http_error');
    expect(outcome(200, '<html>502 Bad Gateway</html>')).toBe('bad_reply');
    expect(outcome(200, JSON.stringify({ Status: true }))).toBe('bad_reply');
    expect(outcome(200, JSON.stringify({ Status: true }), 0)).toBe('ok');
    expect(hrmsOutcome({ kind: 'transient', message: 'ECONNREFUSED', afterSending: false }, 2)).toBe('network_error');
    expect(hrmsOutcome(undefined, 2)).toBe('network_error');
  });
});

describe('JournalTotals: journaled and delivered per terminal, from the journal', () => {
  let tmp: ReturnType<typeof tempDir>;
  let journal: Journal;
  const punch = (terminal: string, s: number) => ({
    terminal,
    biometricCode: '7',
    logTime: `2026-11-22 08:00:${String(s).padStart(2, '0')}`,
  });
  const open = () => Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'owner' });
  beforeEach(() => {
    tmp = tempDir('punchgate-totals-');
    journal = open();
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  it('counts new rows (also those another process wrote), settled deliveries, and starts from the journal again', () => {
    journal.ingest([punch('a', 1), punch('a', 2), punch('b', 3)]);
    const totals = new JournalTotals(journal.queries);
    expect(Object.fromEntries(totals.journaledByTerminal())).toEqual({ a: 2, b: 1 });
    // Duplicates add nothing; another connection (punchgate import) adds rows that count too.
    journal.ingest([punch('a', 1), punch('a', 4)]);
    const other = Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'shared' });
    other.ingest([punch('usb', 5)]);
    other.close();
    expect(Object.fromEntries(totals.journaledByTerminal())).toEqual({ a: 3, b: 1, usb: 1 });
    // Only what the settle delivered counts: a refused punch and an unknown outcome do not.
    const claimed = journal.claim(10);
    const outcomes = claimed.map((p, i) =>
      i === 0
        ? { id: p.id, kind: 'rejected' as const, message: 'no' }
        : i === 1
          ? { id: p.id, kind: 'unknown' as const }
          : { id: p.id, kind: i === 2 ? ('duplicate' as const) : ('delivered' as const) },
    );
    journal.settle(outcomes);
    totals.settled(outcomes);
    const delivered = Object.fromEntries(totals.deliveredByTerminal());
    expect(Object.values(delivered).reduce((s, n) => s + n, 0)).toBe(claimed.length - 2);
    expect(journal.counts().delivered).toBe(claimed.length - 2);
    // A restart: the same totals, read from the journal.
    journal.close();
    journal = open();
    const again = new JournalTotals(journal.queries);
    expect(Object.fromEntries(again.journaledByTerminal())).toEqual({ a: 3, b: 1, usb: 1 });
    expect(Object.fromEntries(again.deliveredByTerminal())).toEqual(Object.fromEntries(totals.deliveredByTerminal()));
  });
});

describe('JournalTotals.catchUp: new punches counted a bounded step at a time', () => {
  it('counts at most the given rows per step, until none is left, each punch once', () => {
    const tmp = tempDir('punchgate-totals-');
    const journal = Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'owner' });
    try {
      const totals = new JournalTotals(journal.queries);
      const punches = Array.from({ length: 5000 }, (_, i) => ({
        terminal: `t${i % 3}`,
        biometricCode: String(i),
        logTime: '2026-11-22 08:00:00',
      }));
      journal.ingest(punches);
      let steps = 0;
      const counted: number[] = [];
      while (totals.catchUp(2000)) {
        steps++;
        // Read what is counted so far without counting more (journaledByTerminal would catch up).
        counted.push(
          [...(totals as unknown as { journaled: Map<string, number> }).journaled.values()].reduce((a, b) => a + b, 0),
        );
      }
      steps++;
      expect(steps).toBe(3);
      expect(counted).toEqual([2000, 4000]);
      expect(totals.catchUp(2000)).toBe(false); // nothing new: nothing to do
      expect(Object.fromEntries(totals.journaledByTerminal())).toEqual({ t0: 1667, t1: 1667, t2: 1666 });
      // More rows after: the next step counts only them.
      journal.ingest([{ terminal: 't9', biometricCode: '1', logTime: '2026-11-22 09:00:00' }]);
      expect(totals.catchUp(2000)).toBe(false);
      expect(totals.journaledByTerminal().get('t9')).toBe(1);
      expect([...totals.journaledByTerminal().values()].reduce((a, b) => a + b, 0)).toBe(5001);

      // Settled punches are only noted in the settle's turn; looked up later, a bounded step at a time.
      const claimed = journal.claim(5);
      const outcomes = claimed.map((p) => ({ id: p.id, kind: 'delivered' as const }));
      journal.settle(outcomes);
      const lookups: number[] = [];
      const queries = journal.queries;
      const spy = queries.deliveredAmongIds.bind(queries);
      queries.deliveredAmongIds = (ids) => (lookups.push(ids.length), spy(ids));
      totals.settled(outcomes);
      expect(lookups).toEqual([]);
      expect(totals.countSettled(2)).toBe(true);
      expect(totals.countSettled(2)).toBe(true);
      expect(totals.countSettled(2)).toBe(false);
      expect(totals.countSettled(2)).toBe(false);
      expect(lookups).toEqual([2, 2, 1]);
      expect([...totals.deliveredByTerminal().values()].reduce((a, b) => a + b, 0)).toBe(5);
    } finally {
      journal.close();
      tmp.cleanup();
    }
  });
});

describe('LatestReport: one report shared by the status log, the page and /metrics', () => {
  it('builds again only when the last one is too old', () => {
    const clock = fakeClock();
    let built = 0;
    const reports = new LatestReport(() => ({ n: ++built }) as unknown as StatusReport, clock.now);
    reports.fresh();
    expect(reports.get(1000)).toEqual({ n: 1 });
    clock.advance(1000);
    expect(reports.get(1000)).toEqual({ n: 1 });
    clock.advance(1);
    expect(reports.get(1000)).toEqual({ n: 2 });
    clock.set(clock.now() - 60_000); // the clock stepped back: not trusted
    expect(reports.get(1000)).toEqual({ n: 3 });
  });
});

describe('the status page', () => {
  const report = (over: Partial<StatusReport> = {}): StatusReport => ({
    site: 'plant-a',
    version: '1.2.3',
    generatedAt: '2026-11-22T09:14:00.000Z',
    punches: { pending: 231, inflight: 0, delivered: 48211, rejected: 14, dead: 0, quarantined: 0, notRouted: 0 },
    oldestPending: { logTime: '2026-11-22 09:11:42', terminal: 'gate-1', queuedAt: '2026-11-22T09:11:43.000Z' },
    delivery: {
      auth: 'failed',
      authFailedSince: '2026-11-22T09:12:00.000Z',
      lastAttemptAt: '2026-11-22T09:13:00.000Z',
      lastSuccessAt: '2026-11-22T09:11:00.000Z',
      lastResult: '200 sent: 200 delivered',
      lastError: 'Bearer token is not correct',
      lastErrorAt: '2026-11-22T09:12:00.000Z',
      failingSince: '2026-11-22T09:12:00.000Z',
      nextTryAt: null,
      probing: false,
    },
    terminals: [
      {
        name: 'gate-2',
        kind: 'zk',
        online: false,
        lastPollAt: '2026-11-22T09:14:00.000Z',
        lastSuccessAt: '2026-11-22T06:14:00.000Z',
        skewSeconds: null,
        records: null,
        users: null,
        serial: '',
        offlineSince: '2026-11-22T06:14:00.000Z',
        lastError: 'no answer from 192.168.1.202:4370 within 10 s',
        problem: {
          cause: 'no answer from 192.168.1.202:4370 within 10 s',
          fix: 'check the cable/power, the IP address (terminals[1].host)',
        },
        stale: true,
        previousSerial: null,
      },
    ],
    journal: {
      path: '/var/lib/punchgate/journal.db',
      busySince: null,
      heldPunches: 0,
      freeBytes: null,
      inflightSince: null,
    },
    config: null,
    daemon: null,
    alerts: ['HRMS refuses the token since 09:12: put a valid token in the token file', '14 punches rejected: <x>: y'],
    alertItems: [
      {
        kind: 'token-refused',
        cause: 'HRMS refuses the token since 09:12',
        fix: 'put a valid token in the token file',
      },
      { kind: 'refused', cause: '14 punches rejected: <x>', fix: 'y' },
    ],
    ...over,
  });
  const info = {
    version: '1.2.3',
    uptimeSeconds: 3 * 86_400 + 4 * 3600,
    zone: 'Europe/Berlin, UTC+01:00',
    refreshSeconds: 10,
  };

  it('says what is wrong in the status log words, with times in the box zone, labelled', () => {
    const page = renderPage(report(), info);
    expect(page).toContain('<meta http-equiv="refresh" content="10" />');
    expect(page).toContain('<title>(2) punchgate plant-a</title>');
    expect(page).toMatch(
      /<li data-kind="token-refused">\s*<span class="cause">HRMS refuses the token since 09:12<\/span><span class="fix">Fix: put a valid token in the token file<\/span>\s*<\/li>/,
    );
    expect(page).toContain('<span class="cause">14 punches rejected: &lt;x&gt;</span>');
    // A terminal's state says why and what to do; its figures are marked as of its last answer.
    expect(page).toContain('<span class="err cause">no answer from 192.168.1.202:4370 within 10 s</span>');
    expect(page).toContain('Fix: check the cable/power, the IP address (terminals[1].host)');
    expect(page).toContain('2 alerts');
    expect(page).toContain('(Europe/Berlin, UTC+01:00): every time on this page is box time');
    expect(page).toContain('<time datetime="2026-11-22T06:14:00.000Z">2026-11-22 06:14:00 +00:00</time>');
    expect(page).toContain('(3 h ago)');
    expect(page).toMatch(/<span class="offline">OFFLINE<\/span>/);
    expect(page).toContain('AUTH FAILED');
    expect(page).toContain('2026-11-22 09:11:42 from gate-1');
    expect(page).toMatch(/punchgate 1\.2\.3 &middot; up 3 d 4 h/);
    expect(page).not.toMatch(/<script|https?:\/\//);
    // The charts say when they were counted: the queue below is counted at each view (a new-user
    // trial saw "delivered 75" in the charts beside 108 delivered and took one for wrong).
    const day = Array.from({ length: 24 }, () => 0);
    const charted = renderPage(report({ generatedAt: '2026-11-22T09:13:30.000Z' }), info, {
      countedAt: Date.parse('2026-11-22T09:14:00Z'),
      hours: day.map((_, i) => Date.parse('2026-11-21T10:00:00Z') + i * 3_600_000),
      punchesByTerminal: new Map(),
      queueMax: day.map(() => null),
      delivered: day,
      refused: day,
      failedRequests: day,
    });
    expect(charted).toMatch(/Counted at 2026-11-22 09:14:00 \+00:00, again each minute/);
    // The queue comes from the status report, not from the moment the page is viewed: its words say
    // the report's time (a trial found "the queue below is counted now" untrue).
    expect(charted).toMatch(/the queue below was counted at\s+2026-11-22 09:13:30 \+00:00/);
    expect(charted).not.toContain('counted now');
    // No alert yet, but rows that say OFFLINE and AUTH FAILED: the verdict says so, never "All good".
    const quiet = renderPage(report({ alerts: [], alertItems: [] }), info);
    expect(quiet).not.toContain('All good');
    expect(quiet).toContain('Not all well (no alert yet): gate-2 OFFLINE; HRMS delivery AUTH FAILED');
    const well = report({ alerts: [], alertItems: [], terminals: [] });
    well.delivery = { ...well.delivery, auth: 'ok', authFailedSince: null, failingSince: null };
    expect(renderPage(well, info)).toContain('All good: no alerts');
  });

  it('sets the commands an alert quotes between backticks as code, never as markup (a new-user trial saw the backticks)', () => {
    const page = renderPage(
      report({
        alertItems: [
          {
            kind: 'refused',
            cause: '3 punches refused: employee not found for code 1`<b>',
            fix: 'add them in the HRMS, then `punchgate punches retry` or `punchgate punches --state rejected <x>`',
          },
        ],
      }),
      info,
    );
    expect(page).toContain(
      '<span class="fix">Fix: add them in the HRMS, then <code>punchgate punches retry</code> or <code>punchgate punches --state rejected &lt;x&gt;</code></span>',
    );
    // A lone backtick (a device's code) stays as it is, its text escaped.
    expect(page).toContain('<span class="cause">3 punches refused: employee not found for code 1`&lt;b&gt;</span>');
  });

  it('shows the last backup as punchgate status says it: when, where, how many; none; or why not known', () => {
    const base = { path: null, punches: null, alertAfterDays: 2 };
    expect(renderPage(report(), info)).not.toContain('id="backup"');
    const made = renderPage(
      report({ backup: { ...base, lastAt: '2026-11-22T03:31:02.000Z', path: '/b/<x>.db', punches: 48090 } }),
      info,
    );
    expect(made).toMatch(
      /<dd id="last-backup"><time datetime="2026-11-22T03:31:02.000Z">2026-11-22 03:31:02 \+00:00<\/time> <span class="muted">\(5 h ago\)<\/span>, \/b\/&lt;x&gt;\.db \(48,090 punches\)<\/dd>/,
    );
    expect(renderPage(report({ backup: { ...base, lastAt: null } }), info)).toContain('none recorded on this box');
    expect(renderPage(report({ backup: { ...base, lastAt: null, unreadable: 'x.json: EACCES' } }), info)).toContain(
      'not known: x.json: EACCES',
    );
  });

  it('says how soon the next try is, never "in the future"', () => {
    // A new-admin trial read "next try 19:44:06 (in the future)" beside a failing HRMS.
    const r = report();
    r.delivery = { ...r.delivery, auth: 'ok', authFailedSince: null, nextTryAt: '2026-11-22T09:14:25.000Z' };
    const page = renderPage(r, info);
    expect(page).toContain(
      '<time datetime="2026-11-22T09:14:25.000Z">2026-11-22 09:14:25 +00:00</time> <span class="muted">(in 25 s)</span>',
    );
    r.delivery = { ...r.delivery, nextTryAt: '2026-11-22T09:19:30.000Z' };
    expect(renderPage(r, info)).toContain('(in 5 min)');
    expect(renderPage(r, info)).not.toContain('in the future');
  });

  it("lists a BioTime server's devices under it, each after an arrow (an HTML entity: the bundle stays one byte per character)", () => {
    const server = {
      ...report().terminals[0]!,
      name: 'biotime-1',
      kind: 'biotime',
      devices: [{ serial: 'CQZ7232160001', alias: 'Main entrance', area: 'Head office', lastPunch: '', read: 3 }],
    };
    const page = renderPage(report({ terminals: [server] }), info);
    expect(page).toContain('&#x21b3; CQZ7232160001 · Main entrance · Head office &middot; last punch');
  });

  it('allows exactly its own style sheet in its Content-Security-Policy', () => {
    const css = /<style>([\s\S]*?)<\/style>/.exec(renderPage(report(), info))![1]!;
    expect(PAGE_CSP).toContain(`style-src 'sha256-${createHash('sha256').update(css).digest('base64')}'`);
    expect(PAGE_CSP).toMatch(/^default-src 'none'/);
  });
});

describe('small helpers', () => {
  it('the version comes from package.json, also in the bundle', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(punchgateVersion()).toBe(pkg.version);
  });

  it('the box zone label: the zone name when known, and the offset', () => {
    const winter = Date.UTC(2026, 0, 15);
    expect(boxZoneLabel(winter, { TZ: 'UTC' })).toBe('UTC+00:00');
    const berlin = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import('./dist/src/util/box-zone.js').then(m => process.stdout.write(m.boxZoneLabel(${winter}) + '|' + m.boxZoneLabel(${Date.UTC(2026, 6, 15)})))`,
      ],
      { encoding: 'utf8', env: { ...process.env, TZ: 'Europe/Berlin' } },
    );
    expect(berlin.stdout).toBe('Europe/Berlin, UTC+01:00|Europe/Berlin, UTC+02:00');
    const stJohns = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import('./dist/src/util/box-zone.js').then(m => process.stdout.write(m.boxZoneLabel(${winter})))`,
      ],
      { encoding: 'utf8', env: { ...process.env, TZ: 'America/St_Johns' } },
    );
    expect(stJohns.stdout).toBe('America/St_Johns, UTC-03:30');
  });
});
