import { afterEach, describe, expect, it } from 'vitest';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { renderPage } from '../../src/web/page.js';
import { startRig, type Rig } from '../delivery/helpers.js';

const MIN = 60_000;

/**
 * A batch the HRMS refused wholly (every punch rejected) is no success: the status said "last
 * success <time> (1 sent: 1 rejected)". The last success keeps the time of the last batch that
 * delivered something (or none), and the refused batch is said as the last attempt.
 */
describe('a batch the HRMS refused wholly', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });
  const poison = (minute: number) => ({
    terminal: 'gate-1',
    biometricCode: '666',
    logTime: `2026-11-01 00:${String(minute).padStart(2, '0')}:30`,
  });
  const good = { terminal: 'gate-1', biometricCode: '101', logTime: '2026-11-01 00:01:00' };
  /** The page's <dd> after the <dt> named `label`. */
  const row = (html: string, label: string) => {
    const from = html.indexOf(`<dt>${label}</dt>`);
    expect(from).toBeGreaterThan(-1);
    return html.slice(from, html.indexOf('</dd>', from));
  };
  const page = (r: ReturnType<typeof buildStatus>) =>
    renderPage(r, { version: '0', uptimeSeconds: 60, zone: 'UTC', refreshSeconds: 10 });

  it('is no success when none came before: last success never, the refusal said as the last attempt', async () => {
    process.env.TZ = 'UTC';
    rig = await startRig({ sim: { faults: { poisonCodes: ['666'] } } });
    // Nothing tried yet: no attempt line at all.
    const untried = formatStatus(buildStatus(rig.journal, rig.config, rig.clock.now(), { freeBytes: null }));
    expect(untried).toContain('last success: never');
    expect(untried).not.toContain('last attempt');
    rig.journal.ingest([poison(5)]);
    expect(await rig.deliverer.deliverBatch()).toMatchObject({ result: 'ok', rejected: 1, delivered: 0 });
    const report = buildStatus(rig.journal, rig.config, rig.clock.now(), { freeBytes: null });
    expect(report.delivery.lastSuccessAt).toBeNull();
    expect(report.delivery.lastResult).toBe('1 sent: 1 rejected');
    const text = formatStatus(report);
    expect(text).not.toMatch(/last success: [^\n]*rejected/);
    expect(text).toMatch(/last attempt: [^\n]*\(1 sent: 1 rejected\)/);
    const html = page(report);
    expect(row(html, 'last success')).not.toContain('rejected');
    expect(row(html, 'last attempt')).toContain('1 sent: 1 rejected');
  });

  it('keeps the time of the last batch that delivered something', async () => {
    process.env.TZ = 'UTC';
    rig = await startRig({ sim: { faults: { poisonCodes: ['666'] } } });
    rig.journal.ingest([good]);
    expect(await rig.deliverer.deliverBatch()).toMatchObject({ result: 'ok', delivered: 1 });
    const delivered = rig.journal.deliveryState.get().lastSuccessAt;
    expect(delivered).not.toBeNull();
    const first = formatStatus(buildStatus(rig.journal, rig.config, rig.clock.now(), { freeBytes: null }));
    expect(first).toMatch(/last success: [^\n]*\(1 sent: 1 delivered\)/);
    expect(first).not.toContain('last attempt');

    rig.clock.advance(10 * MIN);
    rig.journal.ingest([poison(7)]);
    expect(await rig.deliverer.deliverBatch()).toMatchObject({ result: 'ok', rejected: 1, delivered: 0 });
    const report = buildStatus(rig.journal, rig.config, rig.clock.now(), { freeBytes: null });
    expect(Date.parse(report.delivery.lastSuccessAt!)).toBe(delivered);
    const text = formatStatus(report);
    expect(text).not.toMatch(/last success: [^\n]*\(/);
    expect(text).toMatch(/last attempt: [^\n]*\(1 sent: 1 rejected\)/);
  });
});
