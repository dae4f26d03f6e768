import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { tempDir } from '../helpers/tmp.js';

/** `punches --sink NAME` and `punches retry --sink NAME` through the built CLI, on a real journal. */
describe('punches --sink', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, ['dist/punchgate.js', '--config', tmp.path('p.yaml'), ...args], {
      encoding: 'utf8',
    });
    return { status: r.status, out: r.stdout, err: r.stderr };
  };

  it('retry --older says how many older punches it queued for a sink added later, not that they were queued "again"', () => {
    // Found by a site admin's trial: a second HRMS added beside the first, its history sent as
    // sinks.md says: "253 punches of sink hr-new queued again", of punches never queued for it.
    writeFileSync(
      tmp.path('p.yaml'),
      `site: plant-a
journal:
  path: j.db
hrms:
  baseUrl: https://hr.example.com
sinks:
  - name: late
    kind: hrms
    baseUrl: https://late.example.com
`,
    );
    const j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', mode: 'owner' });
    j.useSinks({ defaultSink: 'hrms', others: [] });
    j.ingest(
      ['1', '2', '3'].map((c, i) => ({ terminal: 'gate-1', biometricCode: c, logTime: `2026-11-22 08:0${i}:00` })),
    );
    j.useSinks({ defaultSink: 'hrms', others: ['late'] });
    j.close();
    const r = cli('punches', 'retry', '--sink', 'late', '--older');
    expect(r.status, r.err).toBe(0);
    expect(r.out).toBe(
      '0 rejected punches of sink late queued again; 3 punches journalled before sink late was added queued for it\n',
    );
    expect(cli('punches', '--sink', 'late', '--state', 'pending', '--count').out.trim()).toBe('3');
  });

  it("lists a sink's own state of each punch, and queues its refused ones again", () => {
    writeFileSync(
      tmp.path('p.yaml'),
      `site: plant-a
journal:
  path: j.db
hrms:
  baseUrl: https://hr.example.com
sinks:
  - name: erp
    kind: hrms
    baseUrl: https://erp.example.com
`,
    );
    const j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', mode: 'owner' });
    j.useSinks({ defaultSink: 'hrms', others: ['erp'] });
    j.ingest(
      ['1', '2', '3'].map((c, i) => ({ terminal: 'gate-1', biometricCode: c, logTime: `2026-11-22 08:0${i}:00` })),
    );
    j.settle(j.claim(10).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    const erp = j.sinkQueue('erp');
    const got = erp.claim(10);
    erp.settle([
      { id: got[0]!.id, kind: 'rejected', message: 'No Employee found for 1' },
      { id: got[1]!.id, kind: 'delivered' },
    ]);
    erp.release([got[2]!.id]);
    j.close();

    const all = cli('punches', '--sink', 'erp', '--json');
    expect(all.status, all.err).toBe(0);
    const rows = all.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { biometricCode: string; state: string });
    expect(rows.map((r) => [r.biometricCode, r.state])).toEqual([
      ['3', 'pending'],
      ['2', 'delivered'],
      ['1', 'rejected'],
    ]);
    // The default sink as ever: everything delivered.
    expect(cli('punches', '--state', 'delivered', '--count').out.trim()).toBe('3');
    expect(cli('punches', '--sink', 'hrms', '--state', 'delivered', '--count').out.trim()).toBe('3');
    const table = cli('punches', '--sink', 'erp', '--state', 'rejected');
    expect(table.out).toMatch(/gate-1\s+1\s+2026-11-22 08:00:00\s+rejected\s+1\s+No Employee found for 1/);

    const retry = cli('punches', 'retry', '--sink', 'erp');
    expect(retry.status, retry.err).toBe(0);
    expect(retry.out).toBe('1 punch of sink erp queued again\n');
    expect(cli('punches', '--sink', 'erp', '--state', 'pending', '--count').out.trim()).toBe('2');
    expect(cli('punches', '--sink', 'erp', '--state', 'undelivered', '--count').out.trim()).toBe('2');

    const unknown = cli('punches', '--sink', 'nowhere');
    expect(unknown.status).toBe(78);
    expect(unknown.err).toContain('no sink is named nowhere (the sinks are: hrms, erp)');
  });
});
