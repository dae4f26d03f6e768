import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * The status's fix for a punch of an unknown badge card: add the card to the code map, then
 * `punchgate punches retry`. The retry sends it under the mapped code (found by a new-user trial:
 * it went out as `card:...` again, refused again, and could only end dead).
 */
describe('punches retry after a card was added to the code map', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('punchgate-retry-cards-')));
  afterEach(() => tmp.cleanup());

  it('gives the refused punches of mapped cards their codes and queues them; unmapped cards stay', async () => {
    writeFileSync(tmp.path('cards.csv'), 'card,biometriccode\n0004521000,1042\n');
    writeFileSync(
      tmp.path('punchgate.yaml'),
      [
        'site: plant-a',
        'journal:\n  path: journal.db',
        'hrms:\n  baseUrl: http://127.0.0.1:9\n  tokenFile: token',
        'terminals:',
        '  - name: door\n    kind: serial\n    path: /dev/ttyUSB9\n    format: card\n    codeMap: cards.csv',
      ].join('\n') + '\n',
    );
    const j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    j.ingest([
      { terminal: 'door', biometricCode: 'card:0000000002', logTime: '2026-11-29 08:00:00' },
      { terminal: 'door', biometricCode: 'card:0000000003', logTime: '2026-11-29 08:01:00' },
    ]);
    j.settle(j.claim(10).map((p) => ({ id: p.id, kind: 'rejected' as const, message: 'Unknown biometric code' })));
    j.close();
    // The admin adds card 2 (leading zeros as the reader printed it or not: one card).
    writeFileSync(tmp.path('cards.csv'), 'card,biometriccode\n0004521000,1042\n2,2042\n');
    const r = await runPunchgate(['--config', tmp.path('punchgate.yaml'), 'punches', 'retry']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('door: 1 punch of an unknown card now has the code its code map gives');
    expect(r.stdout).toContain('2 rejected punches queued again');
    const after = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'shared' });
    try {
      const rows = after.queries.list().map((p) => `${p.biometricCode} ${p.state}`);
      expect(rows.sort()).toEqual(['2042 pending', 'card:0000000003 pending']);
      expect(after.queries.unknownCards()).toEqual([{ terminal: 'door', count: 1, codes: ['card:0000000003'] }]);
    } finally {
      after.close();
    }
  });
});
