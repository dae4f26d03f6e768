import { WORDS } from '../../src/sources/biotime/poll.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HourlySeries } from '../../src/journal/hourly-stats.js';
import { ALERT, alertLine, type Alert, type StatusReport } from '../../src/status/index.js';
import type { ConfigStatus, TerminalStatus } from '../../src/status/types.js';
import { renderPage } from '../../src/web/page.js';
import { launchChromium } from '../helpers/browser.js';

/**
 * Every text of the status page meets WCAG AA contrast (4.5:1, 3:1 for large text) against the
 * background it is drawn on, and every chart bar and legend key 3:1 (non-text contrast), in the
 * light and the dark colour scheme, in an all-good state and in a state with every alert the
 * status can raise. Chromium computes the colours (the page's own style sheet, the cascade as a
 * browser applies it: `.bad` inside the verdict badge was red on red); the ratio is WCAG's.
 *
 * PUNCHGATE_SCREENSHOTS=docs writes docs/status-page-ok.png and docs/status-page-alerts.png
 * (light scheme, a laptop's width), the screenshots docs/operate.md shows.
 */
const NOW = Date.parse('2026-11-22T09:14:00.000Z');
const iso = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();

/** A day of figures; `trouble`: the last hours with a queue growing and requests failing. */
function series(trouble: boolean): HourlySeries {
  const hours = Array.from({ length: 24 }, (_, i) => Math.floor(NOW / 3_600_000) * 3_600_000 - (23 - i) * 3_600_000);
  const wave = (scale: number) => hours.map((_, i) => Math.round(scale * (1 + Math.sin(i / 3)) * (i > 5 ? 1 : 0.2)));
  return {
    countedAt: NOW - 30_000,
    hours,
    punchesByTerminal: new Map([
      ['gate-1', wave(40)],
      ['gate-2', wave(25)],
      ['lobby', wave(10)],
    ]),
    queueMax: hours.map((_, i) => (i < 2 ? null : trouble && i > 20 ? 231 : Math.round(5 * (1 + Math.cos(i))))),
    delivered: wave(70),
    refused: hours.map((_, i) => (i % 5 === 0 ? 3 : 0)),
    failedRequests: hours.map((_, i) => (trouble && i > 20 ? 12 : 0)),
  };
}

const online = (name: string, over: Partial<TerminalStatus> = {}): TerminalStatus => ({
  name,
  kind: 'zk',
  online: true,
  lastPollAt: iso(0),
  lastSuccessAt: iso(0),
  skewSeconds: 2,
  records: 4120,
  users: 212,
  serial: `SN-${name}`,
  offlineSince: null,
  lastError: null,
  problem: null,
  stale: false,
  previousSerial: null,
  ...over,
});

function report(alertItems: Alert[], over: Partial<StatusReport> = {}): StatusReport {
  return {
    site: 'plant-a',
    version: '1.2.3',
    generatedAt: new Date(NOW).toISOString(),
    punches: { pending: 0, inflight: 0, delivered: 48211, rejected: 0, dead: 0, quarantined: 0, notRouted: 0 },
    oldestPending: null,
    delivery: {
      auth: 'ok',
      authFailedSince: null,
      lastAttemptAt: iso(1),
      lastSuccessAt: iso(1),
      lastResult: '200 sent: 200 delivered',
      lastError: null,
      lastErrorAt: null,
      failingSince: null,
      nextTryAt: null,
      probing: false,
    },
    terminals: [online('gate-1'), online('gate-2'), online('lobby')],
    journal: {
      path: '/var/lib/punchgate/journal.db',
      busySince: null,
      heldPunches: 0,
      freeBytes: 20e9,
      inflightSince: null,
    },
    config: {
      file: '/etc/punchgate/punchgate.yaml',
      runningOn: 'file',
      loadedAt: iso(300),
      lastGood: '/var/lib/punchgate/config.last-good.yaml',
      failure: null,
      secretsMissing: [],
    },
    daemon: null,
    alerts: alertItems.map(alertLine),
    alertItems,
    ...over,
  };
}

/** Everything wrong at once: every alert of the ALERT table, and the page's states that go with them. */
function everyAlert(): StatusReport {
  const offline = online('gate-2', {
    online: false,
    lastSuccessAt: iso(180),
    offlineSince: iso(180),
    lastError: 'no answer from 192.168.1.202:4370 within 10 s',
    problem: {
      cause: '192.168.1.202:4370 does not answer',
      fix: 'check the power and cable of the terminal, and terminals[1].host',
    },
    stale: true,
    skewSeconds: 400,
    previousSerial: 'SN-OLD',
  });
  const push = online('lobby', {
    kind: 'adms',
    // A push terminal's clock, records and users are not known: empty cells on the page.
    skewSeconds: null,
    records: null,
    users: null,
    online: false,
    offlineSince: iso(20),
    push: {
      lastContactAt: iso(20),
      address: '192.168.1.77',
      lastUploadAt: iso(25),
      uploads: 40,
      received: 4120,
      malformed: 3,
      lastMalformed: 'ATTLOG\t<bad>',
      lastMalformedAt: iso(30),
    },
  });
  const broken: ConfigStatus = {
    file: '/etc/punchgate/punchgate.yaml',
    runningOn: 'last-good',
    loadedAt: iso(600),
    lastGood: '/var/lib/punchgate/config.last-good.yaml',
    failure: {
      problems: ['/etc/punchgate/punchgate.yaml:12: delivery.batchSise: unknown key: did you mean batchSize?', 'x'],
      since: iso(90),
    },
    secretsMissing: ['the comm key of terminal gate-2 (it is not polled)'],
  };
  const gate1 = online('gate-1', { problem: { cause: 'the poll did not finish within 60 s', fix: 'check the cable' } });
  const items: Alert[] = [
    ALERT.daemonDown(),
    ALERT.daemonStuck(NOW - 600_000),
    ALERT.configBroken({ ...broken, runningOn: 'file' }),
    ALERT.configOnCopy(broken),
    ALERT.restartPending(broken.file, ['journal.pastToleranceHours', 'adms.listen'], broken.loadedAt),
    ALERT.configHoldsDelivery({
      ...broken,
      fallback: {
        deliveryHeld:
          'the file names the HRMS https://hr.example.com/ where the copy names https://old-hr.example.com/',
        notStarted: [{ name: 'gate-9', why: 'the file no longer lists it' }],
        onlyInFile: ['gate-10'],
        terminalsUnread: false,
      },
    }),
    ALERT.journalBusy(40_000, 12, '/var/lib/punchgate/journal.db'),
    ALERT.disk(120 * 2 ** 20, false),
    ALERT.noToken('no usable HRMS token: no token configured: put it in /etc/punchgate/token', NOW - 60_000),
    ALERT.tokenRefused(NOW - 120_000),
    ALERT.deliveryFailing({
      forMs: 11 * 60_000,
      waiting: 231,
      reason: 'the HRMS refuses connections: it is down or restarting (connect ECONNREFUSED 10.0.0.5:443)',
      nextTryAt: NOW + 7000,
      probing: true,
    }),
    ALERT.sinkToken({
      sink: 'erp',
      credential: {
        sink: 'erp',
        kind: 'frappe',
        who: 'Frappe',
        what: 'API key and secret',
        place: 'sinks[erp].apiKeyFile and apiSecretFile',
        hrmsBlock: false,
      },
      since: NOW - 120_000,
      noToken: false,
      lastError: 'HTTP 401',
    }),
    ALERT.sinkFailing({
      sink: 'erp',
      forMs: 12 * 60_000,
      waiting: 40,
      reason: 'the HRMS refuses connections: it is down or restarting (connect ECONNREFUSED 10.0.0.6:443)',
      nextTryAt: NOW + 5000,
    }),
    ALERT.cannotStart({
      sink: 'payroll',
      isDefault: false,
      lastError:
        'cannot start delivery: sinks[payroll].caFile: /etc/punchgate/payroll-ca-certificate-bundle.pem does not exist: put the CA certificate (PEM) there, or remove caFile',
      since: NOW - 60_000,
      waiting: 12,
    }),
    ALERT.shiftSyncFailing({ sink: 'erp', forMs: 15 * 60_000, lastError: 'Shift Type Day: HTTP 403: Not permitted' }),
    ALERT.shiftSyncHeld({
      sink: 'erp',
      forMs: 40 * 60_000,
      held: [{ shiftType: 'Night', terminal: 'gate-1', logTime: '2026-11-22 05:58:12' }],
    }),
    ALERT.inflightStuck(200, 20 * 60_000, 1),
    ALERT.terminalNeedsAdmin(offline, { cause: 'reception refuses the password', fix: 'put the right password' }),
    ALERT.terminalUnreachable(offline, 3 * 3_600_000, offline.problem!),
    ALERT.pushSilent(push, NOW),
    ALERT.pollsDoNotFinish(gate1, NOW - 300_000, gate1.problem!),
    ALERT.serialChanged(offline),
    ALERT.clockSkew(offline, false),
    ALERT.sameSerial('SN-7', ['gate-3', 'gate-4']),
    ALERT.quarantinedBehind({
      terminal: 'gate-1',
      count: 4,
      from: '2000-01-01 00:01:00',
      to: '2000-01-01 02:00:00',
      push: false,
    }),
    ALERT.quarantined(2),
    ALERT.quarantinedNoTime({ terminal: 'door', count: 2, from: '2026-02-30 08:00:00' }),
    ALERT.quarantinedFuture({
      terminal: 'lobby',
      count: 2,
      from: '2026-11-22 11:02:00',
      to: '2026-11-22 11:05:00',
      offsetSeconds: 7196,
      push: true,
    }),
    ALERT.serialUnframed({
      cause: 'serial terminal reader: 412 bytes in the last 60 s made no card, key or line (framing auto)',
      fix: 'set framing: etx for STX/ETX readers such as the RDM6300, or check the baud rate (9600) and parity',
    }),
    ALERT.unknownCards({
      terminal: 'reader',
      days: 7,
      recent: { punches: 3, cards: 2, delivered: 2, newestCode: 'card:0099887', newestLogTime: '2026-11-29 08:01:00' },
      waiting: { count: 1, codes: ['card:0012345'] },
      codeMap: '/etc/punchgate/cards.csv',
    }),
    ALERT.pushUnknownSerial({ serial: 'SN-NEW', address: '192.168.1.90', lastSeenAt: iso(2) }),
    ALERT.pushNoSerial({ address: '192.168.1.91', count: 12, lastSeenAt: iso(2) }),
    ALERT.pushSpeaksTls({ address: '192.168.1.92', count: 3, lastSeenAt: iso(2) }),
    ALERT.pushOutsideAllowFrom({ serial: 'SN-L', address: '10.9.9.9', terminal: 'lobby', lastSeenAt: iso(3) }),
    ALERT.pushUnknownSerials([
      { serial: 'X1', address: '192.168.1.91', count: 40, lastSeenAt: iso(2) },
      { serial: 'X2', address: '192.168.1.92', count: 12, lastSeenAt: iso(2) },
      { serial: 'X3', address: '192.168.1.91', count: 9, lastSeenAt: iso(2) },
      { serial: 'X4', address: '192.168.1.93', count: 1, lastSeenAt: iso(2) },
    ]),
    ALERT.pushOutsideAllowFromMany(
      Array.from({ length: 5 }, (_, i) => ({
        serial: 'SN-L',
        address: `10.9.9.${i + 1}`,
        terminal: 'lobby',
        lastSeenAt: iso(3),
        count: 4,
      })),
    ),
    ALERT.pushOtherAddress(push, { address: '192.168.1.66', count: 7, lastAt: iso(1) }),
    ALERT.pushZoneStale('lobby', {
      told: 120,
      toldAt: iso(600),
      now: 60,
      askedAt: iso(90),
      check: 'failed',
      returnCode: -1002,
      doneAt: iso(89),
    }),
    ALERT.hikvisionListenStranger('door-hik', '192.168.1.64', {
      address: '192.168.1.67',
      count: 3,
      lastAt: NOW - 60_000,
    }),
    ALERT.clockStep('the box clock stepped back 1 h at 2026-11-22 09:00:00 +01:00', true, 1),
    ALERT.boxClockBehind('1 h'),
    ALERT.boxClockOff(['gate-1', 'gate-2', 'gate-3'], -3600),
    ALERT.standInSerial({ ...offline, serial: 'DS-K1T341AMF0123456789ab~4f1c2a9be07d3c55' }),
    ALERT.refusedRecords({
      terminal: 'gate-1',
      count: 3,
      firstAt: NOW - 3_600_000,
      lastAt: NOW - 60_000,
      lastReason: 'biometric code has a control character',
      lastCode: '10\\u001b42',
    }),
    ALERT.pushNote('lobby', {
      topic: 'too-large',
      cause:
        'an upload (ATTLOG) of 2,580,000 bytes or more was refused: larger than adms.maxBodyBytes (2,097,152); the terminal sends it again and again, and its later punches wait on the terminal behind it',
      fix: "raise adms.maxBodyBytes above 2,580,000 (twice that is safe) and reload (sudo systemctl reload punchgate): the terminal's next try goes through",
      at: NOW - 60_000,
    }),
    ALERT.zkNote('gate-3', {
      topic: 'realtime',
      cause:
        'its real-time connection keeps dropping soon after it opens (6 times in a row): punchgate reconnects less and less often (next in 32 s, at most a minute apart), and polls read every punch meanwhile',
      fix: "check what sits between this box and the terminal (a proxy, a firewall or NAT that cuts TCP connections) and the terminal's network settings; set realtime: false for it if this goes on",
      at: NOW - 60_000,
    }),
    ALERT.dahuaNote('front-door', {
      topic: 'cursor',
      cause:
        'its log holds 12 records where it held 4,000, and none is newer than the last one read: renumbered or cleared (a reset, or its clock set back); read again from the start (nothing lost)',
      fix: 'nothing to do unless it happens again (then check the terminal)',
      at: NOW - 60_000,
    }),
    ALERT.pushKept(push, {
      table: 'rtlog',
      held: 2,
      lines: 14,
      dropped: 0,
      lastAt: iso(1),
      lastReason: 'event 255 of a user is not in the vendor event table (nor in punchEvents)',
    }),
    ALERT.biotimeApiRefused('hq', {
      ...WORDS.api('You do not have permission to perform this action.'),
      at: NOW - 600_000,
    }),
    ALERT.biotimePasswordRefused('hq', {
      ...WORDS.password('Unable to log in with provided credentials.', '/etc/punchgate/hq.pass'),
      at: NOW - 600_000,
    }),
    ALERT.biotimeTableRenumbered('hq', {
      ...WORDS.table(
        "the server's newest transaction is id 201, below the 400 punchgate had read up to: its transaction table was renumbered (restored or replaced)",
        '2026-11-21 09:00:00',
      ),
      at: NOW - 600_000,
    }),
    ALERT.biotimeServerBehind('hq', { ...WORDS.lag(180, 'Canteen (BOCK201960155)'), at: NOW - 60_000 }),
    ALERT.biotimeReading('hq', { ...WORDS.poll('2000 pages read in one poll'), at: NOW - 60_000 }),
    ALERT.listenerDown(
      {
        listener: 'push',
        listen: '0.0.0.0:8081',
        up: false,
        downSince: iso(5),
        code: 'EADDRINUSE',
        nextTryAt: new Date(NOW + 30_000).toISOString(),
      },
      { push: ['lobby'], posting: [] },
    ),
    ALERT.listenerDown(
      {
        listener: 'status',
        listen: '127.0.0.1:9330',
        up: false,
        downSince: iso(5),
        code: 'EACCES',
        nextTryAt: null,
      },
      { push: [], posting: [] },
    ),
    ALERT.checkpointsOnMainThread(NOW - 600_000, 'SQLITE_FULL: database or disk is full', 2),
    {
      kind: 'refused',
      cause: '14 punches refused: employee not found for codes 1042, 1043',
      fix: 'add them in the HRMS',
    },
  ];
  expect(new Set(items.map((a) => a.kind)).size).toBeGreaterThanOrEqual(Object.keys(ALERT).length);
  return report(items, {
    punches: { pending: 231, inflight: 20, delivered: 48211, rejected: 14, dead: 3, quarantined: 6, notRouted: 0 },
    oldestPending: { logTime: '2026-11-22 09:11:42', terminal: 'gate-1', queuedAt: iso(3) },
    delivery: {
      auth: 'ok',
      authFailedSince: null,
      lastAttemptAt: iso(0),
      lastSuccessAt: iso(11),
      lastResult: '200 sent: 200 delivered',
      lastError: 'connect ECONNREFUSED 10.0.0.5:443',
      lastErrorAt: iso(0),
      failingSince: iso(11),
      nextTryAt: new Date(NOW + 7000).toISOString(),
      probing: true,
    },
    terminals: [
      gate1,
      offline,
      push,
      // Hikvision serials are long, unbroken words: the table must wrap them, never scroll sideways.
      online('hik-door-with-a-long-name', { kind: 'hikvision', serial: 'DS-K1T671MF20210101V030200ENF12345678901234' }),
    ],
    journal: {
      path: '/var/lib/punchgate/journal.db',
      busySince: iso(1),
      heldPunches: 12,
      freeBytes: 120 * 2 ** 20,
      inflightSince: iso(20),
    },
    // The row of settings waiting for a restart shows with the rest (a reload after the copy).
    config: { ...broken, restartPending: ['journal.pastToleranceHours', 'adms.listen'] },
    daemon: { running: true, statusLogAt: iso(10), stale: true },
  });
}

interface Finding {
  what: string;
  text: string;
  fg: string;
  bg: string;
  ratio: number;
  needed: number;
}

/**
 * In the page: every element with text of its own (and every chart bar and legend key), its
 * colour and the background it sits on (the ancestors' backgrounds composed, as painted), and
 * the WCAG contrast ratio. Runs in Chromium as a string (no function of this file is sent).
 */
const MEASURE = `(() => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c);
    if (!m) throw new Error('colour not understood: ' + c);
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, bottom) => ({
    r: top.r * top.a + bottom.r * (1 - top.a),
    g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a),
    a: 1,
  });
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.a > 0) layers.push(c);
      if (c.a >= 1) break;
    }
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    for (const l of layers.reverse()) bg = over(l, bg);
    return bg;
  };
  const hex = (c) => '#' + [c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (!visible(el) || el.closest('title')) continue;
    const own = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim()).map((n) => n.textContent.trim()).join(' ');
    const s = getComputedStyle(el);
    const bg = background(el.closest('svg') ? el.closest('svg') : el);
    if (own) {
      const fg = over(parse(el instanceof SVGElement ? s.fill : s.color), bg);
      const size = parseFloat(s.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
      out.push({ what: el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined ? '.' + el.className : ''), text: own.slice(0, 60), fg: hex(fg), bg: hex(bg), ratio: ratio(fg, bg), needed: large ? 3 : 4.5 });
    }
    const cls = el.getAttribute('class') || '';
    if (/\\bbar-/.test(cls) || /\\bkey-/.test(cls)) {
      // A legend key is its own background: measured against what it sits on.
      const under = el instanceof SVGElement ? bg : background(el.parentElement);
      const fill = over(parse(el instanceof SVGElement ? s.fill : s.backgroundColor), under);
      out.push({ what: el.tagName.toLowerCase() + '.' + cls, text: '(graphic)', fg: hex(fill), bg: hex(under), ratio: ratio(fill, under), needed: 3 });
    }
  }
  return out;
})()`;

describe('the status page meets WCAG AA contrast, in Chromium', () => {
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  beforeAll(async () => {
    browser = await launchChromium({ viewport: { width: 1100, height: 900 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  const info = { version: '1.2.3', uptimeSeconds: 3 * 86_400, zone: 'UTC, UTC+00:00', refreshSeconds: 30 };

  async function show(r: StatusReport, scheme: 'light' | 'dark'): Promise<Page> {
    const page = await browser.context.newPage();
    await page.emulateMedia({ colorScheme: scheme });
    await page.setContent(renderPage(r, info, series(r.alertItems.length > 0)));
    return page;
  }

  for (const [state, make] of [
    ['all good', () => report([])],
    ['every alert', everyAlert],
  ] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`${state}, ${scheme} scheme: every text 4.5:1 (large 3:1), every bar and key 3:1`, async () => {
        const r = make();
        const page = await show(r, scheme);
        try {
          const found = (await page.evaluate(MEASURE)) as Finding[];
          // Measured what matters: the verdict badge, the alerts, the terminals, the charts' labels and bars.
          const texts = found.map((f) => f.text).join('\n');
          expect(texts).toContain(state === 'all good' ? 'All good: no alerts' : `${r.alertItems.length} alerts`);
          for (const a of r.alertItems.slice(0, 3)) expect(texts).toContain(a.cause.slice(0, 40));
          expect(found.filter((f) => f.what.startsWith('rect.bar-')).length).toBeGreaterThan(24);
          expect(found.filter((f) => f.what === 'text').length).toBeGreaterThan(6);
          const poor = found
            .filter((f) => f.ratio < f.needed)
            .map((f) => `${f.what} "${f.text}": ${f.fg} on ${f.bg} = ${f.ratio.toFixed(2)} < ${f.needed}`);
          expect([...new Set(poor)]).toEqual([]);
          if (process.env.PUNCHGATE_SCREENSHOTS === 'docs' && scheme === 'light') {
            mkdirSync('docs', { recursive: true });
            await page.screenshot({
              path: join('docs', state === 'all good' ? 'status-page-ok.png' : 'status-page-alerts.png'),
              fullPage: true,
            });
          }
        } finally {
          await page.close();
        }
      }, 60_000);
    }
    for (const width of [1200, 1000, 800, 390])
      it(`${state}, ${width} px wide: nothing wider than the window (no sideways scrolling), no bare label of an empty cell`, async () => {
        const page = await show(make(), 'light');
        try {
          await page.setViewportSize({ width, height: 900 });
          const [scroll, client] = (await page.evaluate(
            '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
          )) as [number, number];
          expect(scroll).toBeLessThanOrEqual(client);
          // Where the table becomes cards, an empty cell is left out, not shown as a bare "clock:".
          const bareLabels = (await page.evaluate(
            `[...document.querySelectorAll('td[data-label]')].filter((td) => td.textContent.trim() === '' && getComputedStyle(td).display !== 'none').map((td) => td.dataset.label)`,
          )) as string[];
          if (width <= 800) expect(bareLabels).toEqual([]);
        } finally {
          await page.close();
        }
      }, 60_000);
  }
});
