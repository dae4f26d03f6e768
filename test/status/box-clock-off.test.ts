import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * A new-user trial: the box's clock an hour ahead (no NTP yet), its two ZK terminals right. The
 * status blamed each terminal ("its clock is 1 h behind the box ... set syncClock: true"), which
 * would have set both right terminals to the box's wrong time. Every known terminal clock off by
 * the same amount is said as the box's clock, once, with timedatectl first.
 */
describe("terminals all off the box by the same amount: the box's clock is named", () => {
  let tmp: ReturnType<typeof tempDir>;
  let journal: Journal;
  const clock = fakeClock(Date.UTC(2026, 11, 2, 13, 10, 0));
  const config = () =>
    parseConfig(
      {
        site: 'plant-s',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        terminals: [
          { name: 'gate-1', kind: 'zk', host: '10.0.0.1' },
          { name: 'gate-2', kind: 'zk', host: '10.0.0.2' },
        ],
      },
      tmp.dir,
    );
  const skews = (one: number, two: number) => {
    const now = clock.now();
    for (const [name, skewSeconds] of [
      ['gate-1', one],
      ['gate-2', two],
    ] as const)
      journal.terminals.update(name, { online: true, lastPollAt: now, lastSuccessAt: now, skewSeconds });
    return buildStatus(journal, config(), now, { freeBytes: null });
  };

  beforeEach(() => {
    tmp = tempDir();
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-s', clock, mode: 'owner' });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  it('one alert for the box, none telling a terminal to take the box time', () => {
    const r = skews(-3601, -3600);
    expect(r.alertItems.map((a) => a.kind)).toEqual(['box-clock-off']);
    const text = formatStatus(r);
    expect(text).toContain(
      "! the box's clock is likely 1 h ahead: every terminal whose clock punchgate knows (gate-1, gate-2) is 1 h behind it by the same amount (-3600 s)",
    );
    expect(r.alertItems[0]!.fix).toMatch(/^check the box's clock first: timedatectl status/);
    expect(r.alertItems[0]!.fix).toContain('Do not set syncClock on the terminals before');
    expect(text).not.toContain('set syncClock: true for gate-1');
  });

  /**
   * A second trial: terminals set up from the manual's example (timezone: Europe/Berlin) on a site
   * whose terminals and box run on UTC: all an hour "behind", the box blamed, and the last advice,
   * "the terminals are all off: set their clocks", would have set two right clocks an hour wrong.
   * Whole hours name the config's timezone before the terminals' clocks.
   */
  it("whole hours: the terminals' timezone in the config is named before setting their clocks", () => {
    const fix = skews(-3601, -3600).alertItems[0]!.fix;
    expect(fix).toContain(
      "If the box's clock is right, look at a terminal's own display: if it shows the right local time, the timezone these terminals have in the config is not the zone they run in: set it there (punchgate check names each); if their time is wrong, set their clocks",
    );
    expect(fix).not.toContain('the terminals are all off: set their clocks');
    // Not whole hours: no time zone explains it, the clocks are set.
    const drifted = skews(-1500, -1490).alertItems[0]!.fix;
    expect(drifted).toContain("If the box's clock is right, the terminals are all off: set their clocks");
    expect(drifted).not.toContain('in the config');
  });

  it('each terminal its own alert when one is in step, or they differ', () => {
    expect(skews(-3600, 0).alertItems.map((a) => a.kind)).toEqual(['clock-skew']);
    expect(skews(-3600, 7200).alertItems.map((a) => a.kind)).toEqual(['clock-skew', 'clock-skew']);
  });
});
