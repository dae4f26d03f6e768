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
    expect(r.alerts[0]).toMatch(/^sink erp refuses the credential since/);
    // The files of its own kind (a seed HRMS sink: its tokenFile), not every kind's.
    expect(r.alertItems[0]!.fix).toBe(
      'put a valid credential in the files sinks[erp].tokenFile name: they are re-read without a restart',
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
