import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startOdooSim } from '../../src/sim/odoo/index.js';
import { keys, spawnDaemon, startStack } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';

const API_KEY = 'odoo-key-5c1e07aa';

/**
 * A terminal taken out of the config while its punches still waited for Odoo: they went out read
 * in the box's zone, not the terminal's (09:00 in Kolkata sent as 09:00 UTC, five and a half hours
 * off at the HRMS). The journal keeps the zone each terminal had; a real daemon, restarted on a
 * config without the terminal, sends them converted with it.
 */
describe('a terminal taken out of the config', () => {
  it('has its waiting punches sent to Odoo in the zone it had, not the box’s', async () => {
    const stack = await startStack({ terminals: 2 });
    const odoo = await startOdooSim({ apiKeys: [API_KEY], employees: [{ name: 'E4001', barcode: '4001' }] });
    writeFileSync(stack.tmp.path('odoo.key'), `${API_KEY}\n`);
    const odooSink = {
      name: 'odoo',
      kind: 'odoo',
      baseUrl: odoo.url,
      database: 'odoo',
      api: 'json2',
      apiKeyFile: stack.tmp.path('odoo.key'),
      timeoutMs: 20_000,
    };
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, { sinks: [odooSink] });
      Object.assign(c.terminals[0]!, { timezone: 'Asia/Kolkata' });
    });
    const [gate1] = stack.terminals;
    odoo.setFaults({ down: true });
    let d = spawnDaemon(stack.configPath, [], { TZ: 'UTC' });
    try {
      gate1!.addPunch({ userId: '4001', logTime: '2026-11-23 09:00:00', state: 0 });
      await waitFor(() => keys(stack.hrms.attendance()).length === 1, 20_000, 'the punch at the seed HRMS');
      await waitFor(() => odoo.stats.requests > 0, 10_000, 'the Odoo sink trying while Odoo is down');
      d.child.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);

      // gate-1 taken out of the config; Odoo back.
      stack.writeConfig(undefined, (c) => {
        Object.assign(c, { sinks: [odooSink] });
        c.terminals = c.terminals.filter((t) => t.name !== 'gate-1');
      });
      odoo.setFaults({ down: false });
      d = spawnDaemon(stack.configPath, [], { TZ: 'UTC' });
      await waitFor(() => odoo.store.attendances.length === 1, 20_000, 'the punch at Odoo');
      // 09:00 in Kolkata (UTC+5:30) is 03:30 UTC.
      expect(odoo.store.attendances[0]!.check_in).toBe('2026-11-23 03:30:00');
      d.child.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await odoo.stop();
      await stack.stop();
    }
  }, 60_000);
});
