import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { formatReport, runChecks } from '../../src/check/index.js';
import { isUtcName, zoneName } from '../../src/util/box-zone.js';
import type { ZoneFacts } from '../../src/util/container-zone.js';
import { waitFor } from '../helpers/wait.js';
import { startSite, type Site } from './helpers.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const WARNING =
  'terminal gate-1 has no timezone and this container runs in UTC, so its clock is read as UTC: ' +
  'start the container with -e TZ=<the site zone, e.g. Europe/Berlin>, or set timezone: on each terminal';

async function site(): Promise<Site> {
  const s = await startSite();
  cleanups.push(() => s.stop());
  return s;
}

describe('a terminal without timezone in a container left in UTC', () => {
  const docker: ZoneFacts = { env: {}, exists: (p) => p === '/.dockerenv', offsetMinutes: 0, localtime: undefined };

  it('check warns (and still passes)', async () => {
    const s = await site();
    const report = await runChecks({ configPath: s.configPath, env: {}, zoneFacts: docker });
    expect(report.exitCode).toBe(0);
    const text = formatReport(report);
    expect(text).toContain(`WARN time zone: ${WARNING.replace(': start', ' — start')}\n`);
    // With the zone set on the terminal (or TZ given to the container) there is nothing to say.
    s.writeConfig((c) => ((c.terminals as Record<string, unknown>[])[0]!.timezone = 'Europe/Berlin'));
    const quiet = await runChecks({ configPath: s.configPath, env: {}, zoneFacts: docker });
    expect(quiet.checks.map((c) => c.name)).not.toContain('time zone');
    const withTz = await runChecks({ configPath: s.configPath, env: {}, zoneFacts: { ...docker, env: { TZ: 'UTC' } } });
    expect(withTz.checks.map((c) => c.name)).not.toContain('time zone');
  });

  it('punchgate run warns at start (a container: container=docker, no TZ)', async () => {
    const s = await site();
    const env: NodeJS.ProcessEnv = { ...process.env, container: 'docker', PUNCHGATE_HRMS_TOKEN: '', NOTIFY_SOCKET: '' };
    delete env.TZ;
    const child = spawn(process.execPath, ['dist/punchgate.js', 'run', '--config', s.configPath], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    cleanups.push(() => void (child.exitCode === null && child.kill('SIGKILL')));
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('punchgate running'), 15_000, 'the daemon started');
    // Without TZ the box's zone is /etc/localtime's: the warning is due only where that is UTC.
    const local = zoneName({});
    if (local === undefined || isUtcName(local)) expect(out).toContain(WARNING);
    else expect(out).not.toContain('no timezone');
    child.kill('SIGTERM');
  });
});
