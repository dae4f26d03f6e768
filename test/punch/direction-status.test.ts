import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus } from '../../src/status/report.js';
import { renderPage } from '../../src/web/page.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * The status (`status --json`) and the page name a terminal's direction setting where it is not
 * the default, so that whoever reads them knows which way its punches are sent.
 */
describe('direction settings on the status and the page', () => {
  let tmp: ReturnType<typeof tempDir>;
  afterEach(() => tmp.cleanup());

  it('shows out, alternate and a device map; nothing for the default', () => {
    tmp = tempDir('punchgate-direction-');
    const config = parseConfigText(
      `site: plant-a
journal:
  path: j.db
hrms:
  baseUrl: https://hr.example.com
status:
  listen: false
terminals:
  - { name: main, kind: zk, host: 10.0.0.1 }
  - { name: exit, kind: serial, path: /dev/ttyUSB0, format: card, direction: out }
  - { name: turnstile, kind: zk, host: 10.0.0.2, direction: alternate }
  - { name: lobby, kind: hikvision, url: https://192.0.2.10, directionStates: { breakOut: none } }
`,
      tmp.path('punchgate.yaml'),
      tmp.path('.'),
    );
    const journal = Journal.open({ path: config.journal.path, site: 'plant-a', mode: 'owner' });
    try {
      const report = buildStatus(journal, config, Date.UTC(2026, 10, 22, 12));
      expect(report.terminals.map((t) => [t.name, t.direction])).toEqual([
        ['main', undefined],
        ['exit', 'out'],
        ['turnstile', 'alternate'],
        ['lobby', 'device (breakOut: none)'],
      ]);
      expect(JSON.stringify(report.terminals[0])).not.toContain('direction');
      const page = renderPage(report, { version: '1.2.3', uptimeSeconds: 10, zone: 'UTC', refreshSeconds: 10 });
      expect(page).toContain('serial · direction out');
      expect(page).toContain('zk · direction alternate');
      expect(page).toContain('hikvision · direction device (breakOut: none)');
      expect(page).not.toContain('zk · direction device');
    } finally {
      journal.close();
    }
  });
});
