import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatReport, runChecks } from '../../src/check/index.js';
import { startSite, type Site } from './helpers.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function site(): Promise<Site> {
  const s = await startSite();
  cleanups.push(() => s.stop());
  return s;
}

const lines = async (s: Site) => formatReport(await runChecks({ configPath: s.configPath, env: {} })).split('\n');

/**
 * A new-user trial: status.authTokenFile named a file that did not exist (a typo). punchgate run
 * then let nobody open the page or /metrics, and said so only in its log at the first visit,
 * while punchgate check said "all checks passed".
 */
describe('check names a status page token file that lets nobody in', () => {
  it('a missing file and an empty one are warnings with the fix; a token in it passes unsaid', async () => {
    const s = await site();
    const file = join(s.dir, 'status-token');
    s.writeConfig((c) => (c.status = { listen: '127.0.0.1:0', authTokenFile: 'status-token' }));

    const missing = (await lines(s)).find((l) => l.startsWith('WARN status page:'));
    expect(missing).toBe(
      `WARN status page: status.authTokenFile ${file} cannot be read (ENOENT): punchgate run lets nobody open the status page, /status.json or /metrics until it holds a token — put a token on one line in it (for example: openssl rand -hex 24 | sudo tee ${file}), readable by the user punchgate runs as (sudo chown root:punchgate ${file}; sudo chmod 0640 ${file}); punchgate reads it again without a restart. Or remove status.authTokenFile (loopback only)`,
    );

    writeFileSync(file, '\n', { mode: 0o600 });
    expect((await lines(s)).find((l) => l.startsWith('WARN status page:'))).toContain(
      `WARN status page: status.authTokenFile ${file} is empty: punchgate run lets nobody open`,
    );

    writeFileSync(file, 'page-token-0123456789\n', { mode: 0o600 });
    const ok = await lines(s);
    expect(ok.some((l) => l.startsWith('WARN status page:'))).toBe(false);
    expect(ok.join('\n')).not.toContain('page-token-0123456789');
  });
});
