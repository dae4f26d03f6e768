import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { DeliveryHealth, credentialWords } from '../../src/delivery/health.js';
import { clearCannotStart, markCannotStart } from '../../src/delivery/cannot-start.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { silentLogger } from '../../src/util/logger.js';
import { renderPage } from '../../src/web/page.js';
import { runPunchgate } from '../helpers/cli.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const MIN = 60_000;

/**
 * A delivery error that no longer holds is not shown as if it did (a trial read "last error: HTTP
 * 503" in `status --json` an hour after batches went through again): every view, every sink kind,
 * and `punchgate status` of a stopped daemon read from the journal.
 */
describe('a delivery error that no longer holds', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  const raw = () => ({
    site: 'plant-c',
    journal: { path: tmp.path('j.db') },
    hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' },
    sinks: [
      { name: 'erp', kind: 'frappe', baseUrl: 'http://127.0.0.1:9', apiKeyFile: 'k', apiSecretFile: 's' },
      { name: 'books', kind: 'odoo', baseUrl: 'http://127.0.0.1:9', database: 'plant', apiKeyFile: 'k' },
    ],
    terminals: [{ name: 'gate-1', kind: 'zk', host: '10.0.0.1' }],
  });

  beforeEach(() => {
    process.env.TZ = 'UTC';
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  });
  afterEach(() => tmp.cleanup());

  it('is said while it holds, and no more once a batch went through, in every view and for every sink', async () => {
    const journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-c', clock, mode: 'owner' });
    const config = parseConfig(raw(), tmp.dir);
    const sinks: [string | undefined, string][] = [
      [undefined, 'hrms'],
      ['erp', 'frappe'],
      ['books', 'odoo'],
    ];
    const health = sinks.map(
      ([name, kind]) => new DeliveryHealth(journal.deliveryStateOf(name), silentLogger(), clock, credentialWords(kind)),
    );
    health.forEach((h) => h.transient('HTTP 503 Service Unavailable', '3 not delivered: temporary failure', 5000));
    const failing = buildStatus(journal, config, clock.now(), { freeBytes: null });
    expect(failing.delivery.lastError).toBe('HTTP 503 Service Unavailable');
    expect(failing.sinks?.map((s) => s.delivery.lastError)).toEqual(Array(3).fill('HTTP 503 Service Unavailable'));
    expect(formatStatus(failing)).toContain('last error: 2026-11-22 12:00:00 +00:00: HTTP 503 Service Unavailable');

    clock.advance(5 * MIN);
    health.forEach((h) => h.answered('3 sent: 3 delivered'));
    const ok = buildStatus(journal, config, clock.now(), { freeBytes: null });
    expect(ok.delivery.lastError).toBeNull();
    expect(ok.delivery.lastErrorAt).toBeNull();
    expect(ok.sinks?.map((s) => s.delivery.lastError)).toEqual([null, null, null]);
    const text = formatStatus(ok);
    expect(text).not.toContain('503');
    expect(text).toContain('last success: 2026-11-22 12:05:00 +00:00 (3 sent: 3 delivered)');
    const page = renderPage(ok, { version: '0', uptimeSeconds: 60, zone: 'UTC', refreshSeconds: 10 });
    expect(page).not.toContain('503');
    expect(page).not.toContain('last error');
    journal.close();

    // `punchgate status --json` of a stopped daemon reads the same from the journal.
    const file = tmp.path('punchgate.yaml');
    writeFileSync(file, stringify(raw()));
    const cli = await runPunchgate(['--config', file, 'status', '--json']);
    const json = JSON.parse(cli.stdout) as ReturnType<typeof buildStatus>;
    expect(json.delivery.lastError).toBeNull();
    expect(json.sinks?.map((s) => s.delivery.lastError)).toEqual([null, null, null]);
    expect(cli.stdout).not.toContain('503');
  });

  it("a sink that could not start and then did: its build problem is not said as the sink's error", () => {
    const journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-c', clock, mode: 'owner' });
    const state = journal.deliveryStateOf('erp');
    markCannotStart(state, clock, 'sinks[erp].caFile /etc/ca.pem: no such file: put the file in place');
    expect(state.get().lastError).toMatch(/^cannot start delivery/);
    clock.advance(MIN);
    clearCannotStart(state);
    expect(state.get()).toMatchObject({ failingSince: null, lastError: null, lastErrorAt: null });
    journal.close();
  });
});
