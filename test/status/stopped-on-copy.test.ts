import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { saveLastGood } from '../../src/config/last-good.js';
import { cliSandbox } from '../helpers/cli.js';

/**
 * With punchgate run stopped, a config file that does not load and a last good copy beside it,
 * `punchgate status` reads the copy itself: it said "punchgate run runs on the last good config",
 * untrue while nothing runs. It says what a start would do, and that a start (not a reload) applies the fix.
 */
describe('punchgate status of a stopped daemon, the file broken and a last good copy kept', () => {
  let box: ReturnType<typeof cliSandbox> | undefined;
  afterEach(() => box?.tmp.cleanup());

  it('says what a start would run on, not that punchgate run runs on it', async () => {
    box = cliSandbox();
    const good = readFileSync(box.config, 'utf8');
    const copy = saveLastGood(box.tmp.path('journal.db'), box.config, good, Date.now() - 60_000);
    writeFileSync(box.config, `${good}delivery:\n  batchSise: 10\n`);

    const text = await box.cli('status');
    expect(text.status, text.stderr).toBe(0);
    expect(text.stderr).toContain('shown with the last good config');
    expect(text.stdout).not.toContain('punchgate run runs on the last good config');
    expect(text.stdout).toContain(`punchgate run is not running; a start would run on the last good config (loaded `);
    expect(text.stdout).toContain(`kept at ${copy}) because ${box.config} does not load since`);
    expect(text.stdout).toContain('then start it: sudo systemctl start punchgate');
    expect(text.stdout).not.toContain('running on the LAST GOOD COPY');
    expect(text.stdout).toContain(`punchgate run is stopped: a start would run on the LAST GOOD COPY ${copy}`);

    const json = await box.cli('status', '--json');
    expect(json.status, json.stderr).toBe(0);
    const alert = (JSON.parse(json.stdout) as { alertItems: { kind: string; cause: string }[] }).alertItems.find(
      (a) => a.kind === 'config-last-good',
    );
    expect(alert?.cause).toMatch(/^punchgate run is not running; a start would run on the last good config/);
  });
});
