/**
 * `--terminal` of the punches commands names a terminal: a typo (`gate1` for `gate-1`) listed,
 * exported, retried and released nothing, exit 0, saying only "no punches match" or "0 rejected
 * punches of terminal gate1 queued again" (a new-user trial). It is refused now with the names
 * there are, as `poll` and `import` refuse it; a terminal removed from the config whose punches
 * the journal still holds is still a name to filter by.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { cliSandbox } from '../helpers/cli.js';

const terminals = [
  { name: 'gate-1', kind: 'zk', host: '127.0.0.1' },
  { name: 'lobby', kind: 'adms', serial: 'CQZ7232160001' },
];

describe('punches --terminal with a name that is no terminal', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  it('is refused by the listing, export, retry and release with the names there are (exit 78); a removed terminal with punches is not', async () => {
    box = cliSandbox({ terminals, adms: { listen: '127.0.0.1:0' } });
    const j = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    j.ingest([
      { terminal: 'gate-1', biometricCode: '1001', logTime: '2026-11-30 08:00:00' },
      // A terminal removed from the config since: its punches stay in the journal, filtered by its name.
      { terminal: 'old-gate', biometricCode: '1002', logTime: '2026-11-30 08:01:00' },
    ]);
    j.close();
    const refusal =
      '--terminal: no terminal named "gate1" in the config, and no punch of one in the journal (the terminals are: gate-1, lobby; did you mean gate-1?)';
    for (const args of [
      ['punches', '--terminal', 'gate1'],
      ['punches', 'export', '--terminal', 'gate1'],
      ['punches', 'retry', '--terminal', 'gate1'],
      ['punches', 'release', '--terminal', 'gate1'],
    ]) {
      const r = await box.cli(...args);
      expect({ args, status: r.status, stdout: r.stdout }).toEqual({ args, status: 78, stdout: '' });
      expect(r.stderr).toContain(refusal);
    }
    const old = await box.cli('punches', 'export', '--terminal', 'old-gate');
    expect(old.status).toBe(0);
    expect(old.stdout).toContain(',old-gate,');
    const listed = await box.cli('punches', '--terminal', 'gate-1');
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('1001');
    // A terminal of the config with no punch yet is a name too (nothing to list, said so).
    const quiet = await box.cli('punches', '--terminal', 'lobby');
    expect(quiet.status).toBe(0);
  });
});
