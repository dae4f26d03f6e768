import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { leftBehind } from '../../src/daemon/left-behind.js';
import { Journal } from '../../src/journal/index.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Found by an integrator's rehearsal (helper C4): the daemon stopped with `punchgate stopped: no
 * punch waits to be delivered` while its Odoo sink (the second, after the seed HRMS) was still owed
 * 743 punches: the stop line counted the first sink's queue alone. Every sink's are counted now.
 */
describe('what a stop leaves behind', () => {
  const tmp = tempDir();
  afterEach(() => tmp.cleanup());

  it('names the punches another sink is still owed, also when the first has them all', () => {
    const config = parseConfig(
      {
        site: 'plant-a',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        sinks: [{ name: 'odoo', kind: 'odoo', baseUrl: 'https://odoo.example.com', database: 'odoo', apiKeyFile: 'k' }],
        terminals: [{ name: 'gate-1', kind: 'zk', host: '10.0.0.1' }],
      },
      tmp.dir,
    );
    const j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', mode: 'owner' });
    try {
      j.useSinks({ defaultSink: 'hrms', others: ['odoo'] });
      j.ingest(
        ['08:00:00', '12:00:00', '17:00:00'].map((t) => ({
          terminal: 'gate-1',
          biometricCode: '1001',
          logTime: `2026-11-25 ${t}`,
        })),
      );
      // The seed HRMS has them all; Odoo none.
      for (let c = j.claim(1000, { ignoreBackoff: true }); c.length > 0; c = j.claim(1000, { ignoreBackoff: true }))
        j.settle(c.map((p) => ({ id: p.id, kind: 'delivered' as const })));
      const left = leftBehind(j, config);
      expect(left.words).toBe(
        'sink odoo: 3 punches wait in the journal to be delivered (pending 3): kept, and sent when punchgate run starts again',
      );
      expect(left.counts).toEqual({
        pending: 0,
        inflight: 0,
        rejected: 0,
        sinks: { odoo: { pending: 3, inflight: 0, rejected: 0 } },
      });
    } finally {
      j.close();
    }
  });
});
