import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { formatReport, runChecks } from '../../src/check/index.js';
import { GOOD_TOKEN, startSite, type Site } from './helpers.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function site(): Promise<Site> {
  const s = await startSite();
  cleanups.push(() => s.stop());
  return s;
}

const hrmsLine = async (s: Site) => {
  const text = formatReport(await runChecks({ configPath: s.configPath, env: {} }));
  return text.split('\n').find((l) => l.includes(' hrms: '));
};

describe('check names a token that cannot be used, and sends nothing', () => {
  it('a token file with two lines', async () => {
    const s = await site();
    writeFileSync(s.tokenPath, `${GOOD_TOKEN}\nsecond line\n`);
    expect(await hrmsLine(s)).toBe(
      `FAIL hrms: the token file ${s.tokenPath} has 2 lines — put the token alone on one line`,
    );
    expect(s.hrms.requests()).toBe(0);
  });

  it('no token configured at all', async () => {
    const s = await site();
    s.writeConfig((c) => delete (c.hrms as Record<string, unknown>).tokenFile);
    expect(await hrmsLine(s)).toBe(
      'FAIL hrms: no token configured — put the token in PUNCHGATE_HRMS_TOKEN (or a file named by hrms.tokenFile)',
    );
    expect(s.hrms.requests()).toBe(0);
  });
});
