/**
 * The commands around a Dahua terminal as a site admin runs them: `punchgate sim dahua` as a
 * child of the built CLI (hostile records among its log, SHA-256 only), `check` and `poll` against it.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Journal } from '../../src/journal/journal.js';
import { unitEnvironment } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { PASSWORD, ZONE } from './helpers.js';

describe('punchgate sim dahua, check and poll', () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    for (const s of stops.splice(0)) s();
  });

  it('check says what it found; poll journals the accepted records, hostile ones refused at the door; the password never shows', async () => {
    const child = spawn(
      process.execPath,
      [
        'dist/punchgate.js',
        'sim',
        'dahua',
        '--port',
        '0',
        '--password',
        PASSWORD,
        '--records',
        '120',
        '--hostile',
        '--digest',
        'sha256',
        '--utc-offset',
        '+05:30',
        '--page-cap',
        '50',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...unitEnvironment() } },
    );
    stops.push(() => child.kill('SIGTERM'));
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const re = /listening on http:\/\/127\.0\.0\.1:(\d+) /;
    await waitFor(() => re.test(out) || child.exitCode !== null, 30_000, `the simulator's listening line: ${out}`);
    const port = Number(re.exec(out)![1]);

    const tmp = tempDir('punchgate-dahua-cli-');
    stops.push(() => tmp.cleanup());
    writeFileSync(tmp.path('front-door.pass'), PASSWORD + '\n');
    writeFileSync(
      tmp.path('punchgate.yaml'),
      stringify({
        site: 'plant-d',
        journal: { path: 'journal.db' },
        hrms: { baseUrl: 'http://127.0.0.1:9' },
        terminals: [
          {
            name: 'front-door',
            kind: 'dahua',
            host: '127.0.0.1',
            port,
            passwordFile: 'front-door.pass',
            timezone: ZONE,
          },
        ],
      }),
    );
    const config = ['--config', tmp.path('punchgate.yaml')];
    const check = await runPunchgate([...config, 'check']);
    expect(check.stdout).toMatch(/terminal front-door.*serial 7G0C1E2PAZ00042, ASI7213X-T1/);
    expect(check.stdout).toMatch(/126 records held, record search by StartTime\/EndTime/);
    expect(check.stdout + check.stderr).not.toContain(PASSWORD);

    Journal.open({ path: tmp.path('journal.db'), site: 'plant-d', mode: 'owner' }).close();
    const poll = await runPunchgate([...config, 'poll']);
    expect(poll.status, poll.stdout + poll.stderr).toBe(0);
    // 120 generated (12 refused tries), 6 hostile: 3 refused at the door or without a code, 1 dated 2037, 1 with a time that is none.
    expect(poll.stdout).toMatch(
      /^front-door: ok, \d+ records read in \d+ pages \(109 new punches, \d+ known, 2 quarantined\), clock /m,
    );
    const list = await runPunchgate([...config, 'punches', '--json']);
    const codes = list.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { biometricCode?: string; code?: string }).biometricCode ?? '');
    expect(codes).toContain('H-1');
    expect(codes.some((c) => c.includes('\u0007') || c.length > 64)).toBe(false);
    expect(poll.stdout + poll.stderr).not.toContain(PASSWORD);
  }, 90_000);
});
