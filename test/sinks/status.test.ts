import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus } from '../../src/status/report.js';
import { formatStatus } from '../../src/status/format.js';
import { renderPage } from '../../src/web/page.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const MIN = 60_000;

/** The status of a second sink: its figures, its line, and its alerts (beside the default sink's, unchanged). */
describe('status per sink', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;
  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock();
    j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
    j.useSinks({ defaultSink: 'hrms', others: ['erp'] });
    j.ingest(
      ['1', '2', '3'].map((c, i) => ({ terminal: 'gate-1', biometricCode: c, logTime: `2026-11-22 08:0${i}:00` })),
    );
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });
  const config = (sinks: string) =>
    parseConfigText(
      `site: plant-a\njournal:\n  path: ${tmp.path('j.db')}\nhrms:\n  baseUrl: https://hr.example.com\n${sinks}`,
      tmp.path('p.yaml'),
      tmp.path(''),
    );
  const erp = 'sinks:\n  - name: erp\n    kind: hrms\n    baseUrl: https://erp.example.com\n';

  it('names the setting of a default sink declared under sinks: (no hrms: block) as sinks[NAME], not hrms', () => {
    const only = parseConfigText(
      `site: plant-a\njournal:\n  path: ${tmp.path('j.db')}\nsinks:\n  - name: main\n    kind: hrms\n    baseUrl: https://hr.example.com\n`,
      tmp.path('p.yaml'),
      tmp.path(''),
    );
    j.deliveryState.update({
      auth: 'ok',
      failingSince: clock.now() - 20 * MIN,
      lastError: 'connect ECONNREFUSED 10.0.0.5:443',
      lastErrorAt: clock.now() - MIN,
    });
    const r = buildStatus(j, only, clock.now(), { freeBytes: 1e12 });
    expect(r.alertItems.map((a) => a.kind)).toEqual(['delivery-failing']);
    expect(r.alerts[0]).toContain('(or sinks[main].baseUrl names the wrong port)');
    // With an hrms: block the default sink's settings are there.
    j.deliveryStateOf('erp').update({ failingSince: null });
    const both = buildStatus(j, config(erp), clock.now(), { freeBytes: 1e12 });
    expect(both.alerts.find((a) => a.includes('wrong port'))).toContain('(or hrms.baseUrl names the wrong port)');
  });

  it('says a sink failing past delivery.alertAfterMinutes, with its waiting punches, and its line', () => {
    j.deliveryStateOf('erp').update({
      auth: 'ok',
      failingSince: clock.now() - 20 * MIN,
      lastError: 'connect ECONNREFUSED 10.0.0.6:443',
      lastErrorAt: clock.now() - MIN,
    });
    const r = buildStatus(j, config(erp), clock.now(), { freeBytes: 1e12 });
    expect(r.alertItems.map((a) => a.kind)).toEqual(['sink-failing']);
    expect(r.alerts[0]).toContain('delivery to sink erp failing for 20 min: 3 punches waiting for it');
    expect(r.alerts[0]).toContain('punchgate flush --sink erp');
    // The setting to check is the sink's own, as the config names it.
    expect(r.alerts[0]).toContain('(or sinks[erp].baseUrl names the wrong port)');
    expect(r.sinks?.map((s) => s.name)).toEqual(['hrms', 'erp']);
    expect(formatStatus(r)).toMatch(/\n {2}erp +hrms +FAILING +pending 3 /);

    // punchgate run stopped 15 min ago: failing for 5 min when it stopped, and no next try by itself.
    const stopped = buildStatus(j, config(erp), clock.now(), {
      freeBytes: 1e12,
      daemon: { running: false, statusLogAt: clock.now() - 15 * MIN, stale: true },
    });
    expect(stopped.alertItems.map((a) => a.kind)).toEqual(['daemon-down']);
    const longer = buildStatus(j, config(erp), clock.now() + 30 * MIN, {
      freeBytes: 1e12,
      daemon: { running: false, statusLogAt: clock.now() + 5 * MIN, stale: true },
    });
    const failing = longer.alertItems.find((a) => a.kind === 'sink-failing')!;
    expect(failing.cause).toContain('delivery to sink erp was failing for 25 min when punchgate run stopped');
    expect(failing.fix).toMatch(/^start punchgate run \(see above\); to try now: .*--sink erp$/);
  });

  it('says the punches still owed to a sink taken out of the config (or renamed): never sent, and how to send them', () => {
    // erp took the punches in, then the config lost it (a rename, a removal): they wait for nobody.
    j.sinkQueue('erp').claim(1);
    j.useSinks({ defaultSink: 'hrms', others: [] });
    const r = buildStatus(j, config(''), clock.now(), { freeBytes: 1e12 });
    expect(r.removedSinks).toEqual([{ name: 'erp', owed: 3 }]);
    expect(formatStatus(r)).toContain(
      'erp: not in the config, still owed 3 punches: they are not sent to it; to deliver them, put sink erp back in the config and reload',
    );
    // Put back, it owes nothing any more: no line.
    j.useSinks({ defaultSink: 'hrms', others: ['erp'] });
    expect(buildStatus(j, config(erp), clock.now(), { freeBytes: 1e12 }).removedSinks).toBeUndefined();
  });

  it('counts a quarantined punch as quarantined for every sink, not as waiting (taken in or not yet)', async () => {
    // Future-dated: quarantined in the journal; erp has not taken it in yet (no claim since).
    j.ingest([{ terminal: 'gate-1', biometricCode: '9', logTime: '2099-01-01 00:00:00' }]);
    const before = buildStatus(j, config(erp), clock.now(), { freeBytes: 1e12 });
    expect(before.punches).toMatchObject({ pending: 3, quarantined: 1 });
    expect(before.sinks?.find((s) => s.name === 'erp')?.punches).toMatchObject({ pending: 3, quarantined: 1 });
    // erp takes it in with its next claim (as pending in its rows), and sends the three others.
    const erpQueue = j.sinkQueue('erp');
    const claimed = erpQueue.claim(10);
    expect(claimed.map((p) => p.biometricCode)).toEqual(['1', '2', '3']);
    erpQueue.settle(claimed.map((p) => ({ id: p.id, kind: 'delivered' as const })));
    const r = buildStatus(j, config(erp), clock.now(), { freeBytes: 1e12 });
    expect(r.sinks?.find((s) => s.name === 'erp')?.punches).toMatchObject({
      pending: 0,
      inflight: 0,
      delivered: 3,
      quarantined: 1,
    });
    expect(formatStatus(r)).toMatch(/\n {2}erp +hrms .* pending 0 .* quarantined 1 /);
    expect(formatStatus(r)).toMatch(/\n {2}hrms +hrms .* pending 3 .* quarantined 1 /);
    const page = renderPage(r, { version: '0', uptimeSeconds: 1, zone: 'UTC', refreshSeconds: 10 });
    expect(page).toContain('<dd id="sink-erp-pending">0</dd>');
    expect(page).toMatch(/<dd id="sink-erp-quarantined"><span class="bad">1<\/span><\/dd>/);
    // Released: waiting for erp again, and sent.
    expect(await j.queries.releaseQuarantined()).toBe(1);
    expect(erpQueue.counts()).toMatchObject({ pending: 1, quarantined: 0 });
  });

  it("says an Odoo or Frappe sink's refused credential in its own words, naming the sink and its files, never a token file", () => {
    // No hrms: block: Odoo is the default sink, Frappe another.
    const c = parseConfigText(
      `site: plant-a\njournal:\n  path: ${tmp.path('j.db')}\nsinks:\n` +
        `  - name: odoo\n    kind: odoo\n    baseUrl: https://odoo.example.com\n    database: hr\n    apiKeyFile: /etc/punchgate/odoo-key\n` +
        `  - name: erp\n    kind: frappe\n    baseUrl: https://erp.example.com\n    apiKeyFile: /etc/punchgate/erp-key\n    apiSecretFile: /etc/punchgate/erp-secret\n`,
      tmp.path('p.yaml'),
      tmp.path(''),
    );
    j.useSinks({ defaultSink: 'odoo', others: ['erp'] });
    j.deliveryState.update({ auth: 'ok', lastSuccessAt: clock.now() - MIN, lastResult: 'HTTP 200' });
    const ok = buildStatus(j, c, clock.now(), { freeBytes: 1e12 });
    expect(formatStatus(ok)).toContain('\n  Odoo (sink odoo): API key accepted\n');
    const okPage = renderPage(ok, { version: '0', uptimeSeconds: 1, zone: 'UTC', refreshSeconds: 10 });
    expect(okPage).toContain('<dt>Odoo (sink odoo)</dt>');
    expect(okPage).toContain('API key accepted, delivering');
    expect(okPage).not.toMatch(/token accepted/);

    j.deliveryState.update({
      auth: 'failed',
      authFailedSince: clock.now() - MIN,
      lastError: 'Odoo refused the API key: HTTP 401',
    });
    j.deliveryStateOf('erp').update({
      auth: 'failed',
      authFailedSince: clock.now() - MIN,
      lastError: 'Frappe refused the API key and secret: HTTP 401',
    });
    const r = buildStatus(j, c, clock.now(), { freeBytes: 1e12 });
    const odoo = r.alertItems.find((a) => a.kind === 'token-refused')!;
    expect(odoo.cause).toMatch(/^sink odoo: Odoo refuses the API key since /);
    expect(odoo.fix).toBe(
      'put a valid API key in the file sinks[odoo].apiKeyFile names (/etc/punchgate/odoo-key) (re-read without a restart); check sinks[odoo].database and, for Odoo 16-18 (JSON-RPC), sinks[odoo].login: the database and the user the API key belongs to',
    );
    const erpAlert = r.alertItems.find((a) => a.kind === 'sink-token')!;
    expect(erpAlert.cause).toMatch(
      /^sink erp: Frappe refuses the API key and secret since .*: nothing is delivered to it/,
    );
    expect(erpAlert.fix).toBe(
      'put a valid API key and secret in the files sinks[erp].apiKeyFile and apiSecretFile name (/etc/punchgate/erp-key and /etc/punchgate/erp-secret) (re-read without a restart)',
    );
    const text = formatStatus(r);
    expect(text).toContain('\n  Odoo (sink odoo): AUTH FAILED\n');
    const page = renderPage(r, { version: '0', uptimeSeconds: 1, zone: 'UTC', refreshSeconds: 10 });
    expect(page).toContain('AUTH FAILED: Odoo refuses the API key (sinks[odoo].apiKeyFile)');
    expect(page).toContain(
      'AUTH FAILED: Frappe refuses the API key and secret (sinks[erp].apiKeyFile and apiSecretFile)',
    );
    for (const out of [text, page, JSON.stringify(r)]) {
      expect(out).not.toMatch(/token file|refuses the token|HRMS refuses/);
      expect(out).not.toContain('/etc/punchgate/token');
    }
  });

  it("says a sink's refused punches, with its own retry command; the first sink's refusals are not counted for it", () => {
    const erpQueue = j.sinkQueue('erp');
    const claimed = erpQueue.claim(10);
    expect(claimed).toHaveLength(3);
    erpQueue.settle([
      { id: claimed[0]!.id, kind: 'rejected', message: 'Employee not found' },
      { id: claimed[1]!.id, kind: 'rejected', message: 'Employee not found' },
      { id: claimed[2]!.id, kind: 'delivered' },
    ]);
    const r = buildStatus(j, config(erp), clock.now(), { freeBytes: 1e12 });
    const refused = r.alertItems.filter((a) => a.kind === 'refused');
    expect(refused).toEqual([
      {
        kind: 'refused',
        cause: 'sink erp: 2 punches refused: employee not found for codes 1 and 2',
        fix: 'add them in the HRMS, then `punchgate punches retry --sink erp`',
      },
    ]);
  });

  it('says a sink refusing its credential; a config of one sink shows no sinks at all, as before', () => {
    j.deliveryStateOf('erp').update({ auth: 'failed', authFailedSince: clock.now() - MIN, lastError: 'HTTP 401' });
    const r = buildStatus(j, config(erp), clock.now(), { freeBytes: 1e12 });
    expect(r.alertItems.map((a) => a.kind)).toEqual(['sink-token']);
    expect(r.alerts[0]).toMatch(/^sink erp: HRMS refuses the token since/);
    // The file of its own kind (a seed HRMS sink: its tokenFile), not every kind's.
    expect(r.alertItems[0]!.fix).toBe(
      'put a valid token in the file sinks[erp].tokenFile names (re-read without a restart)',
    );
    // Frappe taking the key but refusing its user the right: a role to give, not a key to replace.
    j.deliveryStateOf('erp').update({
      lastError:
        'HRMS refused the token: Frappe refused the API user the right (HTTP 403 PermissionError): give the API user the HR User role (create Employee Checkin, read Employee, write Shift Type)',
    });
    const rights = buildStatus(j, config(erp), clock.now(), { freeBytes: 1e12 }).alertItems[0]!;
    expect(rights.cause).toMatch(/^sink erp: Frappe takes its API key but refuses its user the right to deliver since/);
    expect(rights.fix).toMatch(/^give the API user the HR User role in Frappe/);
    const one = buildStatus(j, config(''), clock.now(), { freeBytes: 1e12 });
    expect(one.sinks).toBeUndefined();
    expect(formatStatus(one)).not.toContain('Sinks');
  });
});
