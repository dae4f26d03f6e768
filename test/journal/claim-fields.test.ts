import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { hashedPunchId } from '../../src/journal/punch-id.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * A claim reads its rows as arrays of values (issue 35: cheaper than named objects) and makes
 * each claimed punch from them by position: every field of what it hands the deliverer is the
 * journalled punch's, whatever its device, state and history.
 */
describe('a claimed punch carries the journalled punch', () => {
  let tmp: ReturnType<typeof tempDir>;
  let j: Journal;
  beforeEach(() => {
    tmp = tempDir();
    j = Journal.open({ path: tmp.path('j.db'), site: 'site', clock: fakeClock(), mode: 'owner' });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('terminal, device, code, time, state, attempts, previous state and devicelogId, field by field', () => {
    j.ingest([
      { terminal: 'gate', device: 'SN42', biometricCode: '1001', logTime: '2026-11-22 08:00:00', punchState: 1 },
    ]);
    j.ingest([{ terminal: 'door', biometricCode: '2002', logTime: '2026-11-22 08:01:00' }]);
    const first = j.claim(10);
    expect(first.map((p) => p.biometricCode)).toEqual(['1001', '2002']);
    // The first refused once (an attempt charged, back as rejected), the second answered nothing usable.
    j.settle([
      { id: first[0]!.id, kind: 'rejected', message: 'no such employee' },
      { id: first[1]!.id, kind: 'unknown' },
    ]);
    const again = j.claim(10, { ignoreBackoff: true });
    expect(again).toEqual([
      {
        id: first[0]!.id,
        devicelogId: hashedPunchId({
          site: 'site',
          terminal: 'gate',
          device: 'SN42',
          biometricCode: '1001',
          logTime: '2026-11-22 08:00:00',
        }),
        biometricCode: '1001',
        logTime: '2026-11-22 08:00:00',
        terminal: 'gate',
        device: 'SN42',
        punchState: 1,
        attempts: 1,
        previousState: 'rejected',
      },
      {
        id: first[1]!.id,
        devicelogId: hashedPunchId({
          site: 'site',
          terminal: 'door',
          device: '',
          biometricCode: '2002',
          logTime: '2026-11-22 08:01:00',
        }),
        biometricCode: '2002',
        logTime: '2026-11-22 08:01:00',
        terminal: 'door',
        device: '',
        punchState: null,
        attempts: 0,
        previousState: 'pending',
      },
    ]);
    expect(again.map((p) => p.devicelogId)).toEqual(first.map((p) => p.devicelogId));
    // Settled from the raw claim: each punch counted once, where it went.
    j.settle(again.map((p) => ({ id: p.id, kind: 'delivered' as const })));
    expect(j.counts()).toMatchObject({ delivered: 2, inflight: 0, pending: 0, rejected: 0 });
    expect(j.punchCounts.byTerminal()).toEqual(
      expect.arrayContaining([
        { terminal: 'gate', journaled: 1, delivered: 1 },
        { terminal: 'door', journaled: 1, delivered: 1 },
      ]),
    );
  });
});
