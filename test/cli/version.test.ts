import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { tempDir } from '../helpers/tmp.js';

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

const punchgate = (args: string[]) =>
  spawnSync(process.execPath, ['dist/punchgate.js', ...args], {
    encoding: 'utf8',
    env: { ...process.env, PUNCHGATE_HRMS_TOKEN: '' },
  });

describe('the version', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
    writeFileSync(
      tmp.path('punchgate.yaml'),
      'site: plant-a\njournal:\n  path: journal.db\nhrms:\n  baseUrl: https://hr.example.com\nstatus:\n  listen: false\n',
    );
    // Only punchgate run creates a journal: make it as run does.
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
  });
  afterEach(() => tmp.cleanup());

  it("punchgate --version and -V print it with the runtime's version and exit 0", () => {
    for (const flag of ['--version', '-V']) {
      const r = punchgate([flag]);
      expect(r.status, r.stderr).toBe(0);
      // The runtime that runs it (an installed package brings its own Node.js).
      expect(r.stdout).toBe(`punchgate ${VERSION} (Node ${process.version})\n`);
    }
  });

  it('status shows it in its first line and in --json (as the status log does)', () => {
    const r = punchgate(['--config', tmp.path('punchgate.yaml'), 'status']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(
      new RegExp(`^punchgate status — site plant-a — .+ — punchgate ${VERSION}$`),
    );
    const json = punchgate(['--config', tmp.path('punchgate.yaml'), 'status', '--json']);
    expect((JSON.parse(json.stdout) as { version: string }).version).toBe(VERSION);
  });

  it('check shows it in its first line and in --json', () => {
    const r = punchgate(['--config', tmp.path('punchgate.yaml'), 'check', '--quick']);
    expect(r.stdout.split('\n')[0]).toBe(`punchgate ${VERSION} check (Node ${process.version})`);
    const json = punchgate(['--config', tmp.path('punchgate.yaml'), 'check', '--quick', '--json']);
    expect((JSON.parse(json.stdout) as { version: string }).version).toBe(VERSION);
  });
});
