import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus } from '../../src/status/report.js';
import { cliSandbox } from '../helpers/cli.js';

/**
 * A punch whose time does not exist (`2026-02-30`, `24:00:00`: a broken clock, firmware, or a
 * stranger's upload) is kept quarantined and never sent: the status says so and offers no release,
 * and `punches release` leaves it, saying why (found by an adversarial trial: a release sent them,
 * and an HRMS that reads dates loosely would have filed 2 March).
 */
describe('quarantined punches whose time does not exist', () => {
  let box: ReturnType<typeof cliSandbox> | undefined;
  afterEach(() => box?.tmp.cleanup());

  it('the status says they are never sent; punches release leaves them and says why', async () => {
    box = cliSandbox({ terminals: [{ name: 'door', kind: 'zk', host: '127.0.0.1', port: 4370 }] });
    const path = box.tmp.path('journal.db');
    const j = Journal.open({ path, site: 'plant-a', mode: 'owner' });
    j.ingest([
      { terminal: 'door', biometricCode: '4014', logTime: '2026-02-30 08:00:00' },
      { terminal: 'door', biometricCode: '4015', logTime: '2026-11-22 24:00:00' },
      { terminal: 'door', biometricCode: '4016', logTime: '1999-12-31 23:59:59' },
    ]);
    const config = parseConfigText(
      `site: plant-a\njournal:\n  path: ${path}\nhrms:\n  baseUrl: https://hr.example.com\nterminals:\n  - name: door\n    kind: zk\n    host: 127.0.0.1\n`,
      box.tmp.path('p.yaml'),
      box.tmp.path(''),
    );
    const alerts = buildStatus(j, config, Date.now(), { freeBytes: 1e12 }).alertItems;
    j.close();
    const noTime = alerts.filter((a) => a.kind === 'quarantined-no-time');
    expect(noTime).toHaveLength(1);
    expect(noTime[0]!.cause).toBe(
      'terminal door: 2 punches quarantined with a time that does not exist (such as "2026-02-30 08:00:00"): no HRMS can take them, so they are kept in the journal and never sent',
    );
    expect(noTime[0]!.fix).not.toContain('release');
    // The punch before 2000 is the one the generic alert counts (its release is the admin's call).
    expect(alerts.find((a) => a.kind === 'quarantined')?.cause).toBe('1 punch quarantined (implausible time)');

    const r = await box.cli('punches', 'release', '--terminal', 'door');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      '1 quarantined punch released\n' +
        '2 kept quarantined: their time does not exist (such as "2026-02-30 08:00:00"), so no HRMS can take them; punchgate punches --state quarantined lists them\n',
    );
  });
});
