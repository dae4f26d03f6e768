import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus } from '../../src/status/report.js';
import type { LiveFacts } from '../../src/status/types.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const MIN = 60_000;

/** A Frappe sink's shift sync failing: an alert once past delivery.alertAfterMinutes, never before. */
describe('status: shift sync', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;
  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock();
    j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
    j.useSinks({ defaultSink: 'erp', others: [] });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });
  // One sink only (the Frappe one is the default): the alert does not need a second sink.
  const config = () =>
    parseConfigText(
      `site: plant-a\njournal:\n  path: ${tmp.path('j.db')}\nsinks:\n  - name: erp\n    kind: frappe\n` +
        `    baseUrl: https://erp.example.com\n    apiKeyFile: /k\n    apiSecretFile: /s\n` +
        `    shiftSync:\n      - shiftType: Day\n        terminals: [gate-1]\n` +
        `terminals:\n  - name: gate-1\n    kind: zk\n    host: 10.0.0.9\n`,
      tmp.path('p.yaml'),
      tmp.path(''),
    );
  /** The daemon's live facts with sink erp's shift sync as given. */
  const liveWith = (shiftSync: NonNullable<NonNullable<LiveFacts['sinks']>[string]['shiftSync']>) => ({
    journalBusySince: null,
    heldPunches: 0,
    sinks: { erp: { nextTryAt: null, probing: false, shiftSync } },
  });
  const live = (failingSince: number | null) =>
    liveWith({ failingSince, lastError: 'Shift Type Day: HTTP 403: Not permitted', lastSet: {} });
  const kinds = (failingSince: number | null) =>
    buildStatus(j, config(), clock.now(), { live: live(failingSince) }).alertItems!.map((a) => a.kind);

  it("raised past alertAfterMinutes (default 10), with Frappe's words and the fix", () => {
    expect(kinds(null)).not.toContain('shift-sync-failing');
    expect(kinds(clock.now() - 9 * MIN)).not.toContain('shift-sync-failing');
    const r = buildStatus(j, config(), clock.now(), { live: live(clock.now() - 11 * MIN) });
    const a = r.alertItems!.find((x) => x.kind === 'shift-sync-failing')!;
    expect(a.cause).toContain('sink erp');
    expect(a.cause).toContain('HTTP 403: Not permitted');
    expect(a.cause).toContain('punches are delivered all the same');
    expect(a.fix).toContain('write access to Shift Type');
    expect(r.alerts).toContain(`${a.cause}: ${a.fix}`);
  });

  it('a shift type standing at a refused punch: an alert past alertAfterMinutes naming the punch, the shift and the fix', () => {
    const held = (since: number) =>
      liveWith({
        failingSince: null,
        lastError: null,
        lastSet: { Day: '2026-11-22 09:30:00' },
        held: { Day: { terminal: 'gate-1', logTime: '2026-11-22 09:30:00', since } },
      });
    const at = (since: number) => buildStatus(j, config(), clock.now(), { live: held(since) }).alertItems ?? [];
    expect(at(clock.now() - 9 * MIN).map((a) => a.kind)).not.toContain('shift-sync-held');
    const a = at(clock.now() - 11 * MIN).find((x) => x.kind === 'shift-sync-held')!;
    expect(a.cause).toBe(
      'sink erp: Shift Type Day has waited 11 min at 2026-11-22 09:30:00, where a punch of gate-1 was refused by Frappe and waits for its retry: Auto Attendance marks nobody of that shift after that time until the punch is delivered',
    );
    expect(a.fix).toContain('punchgate punches --sink erp --state rejected --terminal gate-1');
    expect(a.fix).toContain('punchgate punches retry --sink erp');
  });
});
