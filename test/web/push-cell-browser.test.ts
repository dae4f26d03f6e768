import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport, TerminalStatus } from '../../src/status/index.js';
import { statusJson } from '../../src/status/json.js';
import { renderPage } from '../../src/web/page.js';
import { launchChromium } from '../helpers/browser.js';

const NOW = Date.parse('2026-11-22T09:14:00.000Z');
const iso = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();

/** A Security PUSH controller as it registers: a dozen capacities beside its model and firmware. */
const CAPACITIES = Object.fromEntries(
  [
    'MaxUserCount',
    'MaxAttLogCount',
    'MaxFingerCount',
    'MaxFaceCount',
    'MaxUserPhotoCount',
    'MaxPalmCount',
    'MaxCardCount',
    'LockCount',
    'ReaderCount',
    'AuxInCount',
    'AuxOutCount',
    'MaxPackageSize',
  ].map((k, i) => [k, 1000 * (i + 1)]),
);

const door: TerminalStatus = {
  name: 'door',
  kind: 'adms',
  online: true,
  lastPollAt: iso(1),
  lastSuccessAt: iso(1),
  skewSeconds: null,
  records: null,
  users: null,
  serial: 'CQZ7232160042',
  offlineSince: null,
  lastError: null,
  problem: null,
  stale: false,
  previousSerial: null,
  firmware: 'ZAM180-NF-Ver1.2.7',
  push: {
    lastContactAt: iso(1),
    address: '192.168.1.80',
    lastUploadAt: iso(3),
    uploads: 12,
    received: 240,
    malformed: 0,
    lastMalformed: null,
    lastMalformedAt: null,
    protocol: 'security',
    device: {
      model: 'SpeedFace-V5L',
      firmware: 'ZAM180-NF-Ver1.2.7',
      pushVersion: '3.1.2',
      registeredAt: iso(600),
      capacities: CAPACITIES,
    },
  },
};

const report: StatusReport = {
  site: 'hq',
  version: '1.2.3',
  generatedAt: new Date(NOW).toISOString(),
  punches: { pending: 0, inflight: 0, delivered: 240, rejected: 0, dead: 0, quarantined: 0, notRouted: 0 },
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
  terminals: [door],
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
  alerts: [],
  alertItems: [],
};

/**
 * A Security PUSH terminal's cell on the status page listed every capacity it announced (a
 * dozen "MaxUserCount 10000" beside its name). A site admin needs what it is, its firmware and
 * when it was last heard; the capacities stay in `status --json`.
 */
describe('a Security PUSH terminal on the status page', () => {
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  beforeAll(async () => {
    browser = await launchChromium({ viewport: { width: 1280, height: 800 } });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows its kind, model, firmware and last contact, not its capacities', async () => {
    const html = renderPage(report, { version: 't', uptimeSeconds: 60, zone: 'UTC', refreshSeconds: 30 });
    const page = await browser.context.newPage();
    await page.setContent(html);
    const cell = (await page.locator('td[data-label="terminal"]').first().innerText()).replace(/\s+/g, ' ').trim();
    expect(cell).toBe('door adms · CQZ7232160042 Security PUSH · SpeedFace-V5L · firmware ZAM180-NF-Ver1.2.7');
    expect(cell).not.toMatch(/Max|Count/);
    const row = (await page.locator('tbody tr').first().innerText()).replace(/\s+/g, ' ');
    expect(row).toContain('1 min ago');
    if (process.env.PUNCHGATE_SCREENSHOTS)
      await page.screenshot({ path: process.env.PUNCHGATE_SCREENSHOTS, fullPage: true });
    // The full list stays in `status --json`.
    const json = JSON.parse(statusJson(report)) as StatusReport;
    expect(json.terminals[0]!.push!.device!.capacities).toEqual(CAPACITIES);
  });
});
