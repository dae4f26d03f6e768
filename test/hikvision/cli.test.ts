import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { HikvisionClient } from '../../src/sources/hikvision/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { unitEnvironment } from '../daemon/stack.js';
import { startSimProcess } from './sim-process.js';
import { Journal } from '../../src/journal/journal.js';
import { displayWidth } from '../../src/util/display-width.js';

const SIM_PASSWORD = 'Cli-sim-passw0rd';

const children: ChildProcess[] = [];
const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) d.cleanup();
});

function punchgate(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runPunchgate(args, { env: { ...unitEnvironment(), ...env } });
}

async function startCliSim(args: string[]) {
  const sim = await startSimProcess(args, SIM_PASSWORD);
  children.push(sim.child);
  return sim;
}

function configFor(url: string, extra: Record<string, unknown> = {}) {
  const tmp = tempDir('punchgate-hik-cli-');
  dirs.push(tmp);
  writeFileSync(tmp.path('token'), 'tok\n');
  writeFileSync(tmp.path('reception.pass'), SIM_PASSWORD + '\n');
  writeFileSync(
    tmp.path('pg.yaml'),
    stringify({
      site: 's',
      journal: { path: 'journal.db' },
      hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' },
      terminals: [
        { name: 'reception', kind: 'hikvision', url, passwordFile: 'reception.pass', timeoutMs: 5000, ...extra },
      ],
    }),
  );
  // Only punchgate run creates a journal: make it as run does at its first start.
  Journal.open({ path: tmp.path('journal.db'), site: 's', mode: 'owner' }).close();
  return tmp;
}

describe('punchgate sim hikvision and the Hikvision commands', () => {
  it('the simulator serves generated events, stops on SIGTERM, and never prints the password', async () => {
    const sim = await startCliSim(['--events', '40', '--serial', 'SIM-HIK-1', '--page-cap', '10']);
    expect(sim.out()).toMatch(
      /^Hikvision terminal simulator SIM-HIK-1 listening on http:\/\/127\.0\.0\.1:\d+ \(user admin, \d+ events, serial filters yes, pages of 10\)/,
    );
    const c = await HikvisionClient.open({ url: sim.url, username: 'admin', password: SIM_PASSWORD, timeoutMs: 5000 });
    const page = await c.eventPage({ major: 5, minor: 0, maxResults: 30 }, 'x', 0);
    expect(page.numOfMatches).toBe(10);
    expect(page.status).toBe('MORE');
    await c.http.close();
    sim.child.kill('SIGTERM');
    await waitFor(() => sim.child.exitCode !== null, 10_000, 'the simulator to stop');
    expect(sim.child.exitCode).toBe(0);
    expect(sim.out()).not.toContain(SIM_PASSWORD);
  });

  it('terminals users lines up its columns for Chinese, Arabic and accented names (a new-user trial)', async () => {
    const sim = await startCliSim(['--events', '0', '--users', '1']);
    const c = await HikvisionClient.open({ url: sim.url, username: 'admin', password: SIM_PASSWORD, timeoutMs: 5000 });
    for (const [employeeNo, name] of [
      ['1001', 'John Doe'],
      ['1002', 'أحمد علي'],
      ['1003', '王丽'],
      ['1004', 'François Béyoncé'],
    ] as const)
      await c.users.setUp({ employeeNo, name });
    await c.http.close();
    const tmp = configFor(sim.url);
    const users = await punchgate(['terminals', 'users', 'reception', '--config', tmp.path('pg.yaml')]);
    expect(users.status).toBe(0);
    const lines = users.stdout.split('\n').filter((l) => /^100[1-4] /.test(l));
    expect(lines).toHaveLength(4);
    // The TYPE column starts at the same screen column on every row: 王丽 takes 4 columns, not 2.
    const typeAt = lines.map((l) => displayWidth(l.slice(0, l.indexOf('normal'))));
    expect(typeAt).toEqual([42, 42, 42, 42]);
  });

  it('poll journals the passes; terminals users lists the people; check passes; none prints the password', async () => {
    const sim = await startCliSim(['--events', '60', '--users', '7', '--utc-offset', '+01:00']);
    const tmp = configFor(sim.url, { timezone: 'Etc/GMT-1' });
    const cfg = ['--config', tmp.path('pg.yaml')];

    const poll = await punchgate(['poll', ...cfg]);
    expect(poll.stderr).toBe('');
    expect(poll.stdout).toMatch(
      /^reception: ok, \d+ events read, 60 punches \(60 new, 0 known\), 7 users, clock [+-]\d s\n$/,
    );
    expect(poll.status).toBe(0);

    const users = await punchgate(['terminals', 'users', 'reception', ...cfg]);
    expect(users.status).toBe(0);
    expect(users.stdout.split('\n')[0]).toMatch(/^EMPLOYEE NO +NAME +TYPE +FP FACE +CARDS$/);
    expect(users.stdout).toContain('100000           Person 100000            normal');
    const json = JSON.parse(
      (await punchgate(['terminals', 'users', 'reception', '--json', ...cfg])).stdout,
    ) as unknown[];
    expect(json).toHaveLength(7);

    const check = await punchgate(['check', '--json', ...cfg]);
    const t = (JSON.parse(check.stdout) as { checks: { name: string; status: string; detail: string }[] }).checks.find(
      (c) => c.name === 'terminal reception',
    )!;
    expect(t.status, t.detail).toBe('pass');
    expect(t.detail).toMatch(/\(plain http\), serial DS-K1T.*, 7 users, event search by serial number, clock in step/);

    const list = await punchgate(['terminals', ...cfg]);
    expect(list.stdout).toMatch(/^reception +hikvision +online /m);
    for (const r of [poll, users, check, list]) expect(r.stdout + r.stderr).not.toContain(SIM_PASSWORD);
  }, 120_000);

  it('a wrong password: poll says so plainly, and check and terminals users then keep to the wait', async () => {
    const sim = await startCliSim(['--events', '3']);
    const tmp = configFor(sim.url);
    writeFileSync(tmp.path('reception.pass'), 'not-the-password\n');
    const cfg = ['--config', tmp.path('pg.yaml')];
    const poll = await punchgate(['poll', ...cfg]);
    expect(poll.status).toBe(75);
    expect(poll.stdout).toMatch(
      /^reception: FAILED: refuses the password: put the right password in \S+\/reception\.pass \(next try at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d,/,
    );
    const check = await punchgate(['check', ...cfg]);
    expect(check.stdout).toMatch(/not tried again by check, so as not to lock the account/);
    const users = await punchgate(['terminals', 'users', 'reception', ...cfg]);
    expect(users.status).toBe(75);
    expect(users.stderr).toMatch(/reception refuses the password/);
    // With the fix the status gives, naming the setting.
    expect(users.stderr).toMatch(/ — put the password of the device account "admin" in terminals\[0\]\.passwordFile/);
    const status = await punchgate(['status', ...cfg]);
    expect(status.stdout).toMatch(/! terminal reception refuses the password/);
    // One try in all: the device counted one failure, far from its lock.
    const state = (await (await fetch(`${sim.url}/__sim/state`)).json()) as {
      auth: { failures: number; lockouts: number };
    };
    expect(state.auth).toMatchObject({ failures: 1, lockouts: 0 });
    for (const r of [poll, check, users, status]) expect(r.stdout + r.stderr).not.toContain('not-the-password');
  });

  it('poll --terminal and terminals users return from a device that does not end its searches, and say so', async () => {
    const sim = await startCliSim([
      '--events',
      '60',
      '--users',
      '7',
      '--search-fault',
      'repeat',
      '--endless-user-search',
    ]);
    expect(sim.out()).toMatch(/search fault repeat, endless user search\)/);
    const tmp = configFor(sim.url);
    const cfg = ['--config', tmp.path('pg.yaml')];

    const poll = await punchgate(['poll', '--terminal', 'reception', ...cfg]);
    expect(poll.status).toBe(75);
    expect(poll.stdout).toMatch(
      /^reception: STOPPED EARLY: \/ISAPI\/AccessControl\/AcsEvent: the device (keeps saying MORE past|sent a page of events it had sent already).*; \d+ events read, 60 punches \(60 new, 0 known\)\n$/,
    );
    const users = await punchgate(['terminals', 'users', 'reception', ...cfg]);
    expect(users.status).toBe(75);
    expect(users.stderr).toMatch(
      /^punchgate: reception: \/ISAPI\/AccessControl\/UserInfo\/Search: the device sent a page it had sent already.* — restart the terminal, and update its firmware if it goes on\n$/,
    );
    const { requests } = await sim.admin<{ requests: { path: string; auth: string; cond?: unknown }[] }>(
      'GET',
      'requests',
    );
    const asked = (path: string) => requests.filter((r) => r.path === path && r.auth === 'ok').length;
    expect(asked('/ISAPI/AccessControl/UserInfo/Search')).toBe(2);
    expect(asked('/ISAPI/AccessControl/AcsEvent')).toBeLessThanOrEqual(Math.ceil(180 / 30) + 3);

    const status = await punchgate(['status', ...cfg]);
    expect(status.stdout).toMatch(
      /! terminal reception: a poll ended early: .*\(last at .*\): restart the terminal, and update its firmware if it goes on/,
    );
  });

  it('a terminal without an event search (sim --no-event-search) is said to lack it, with listen: true as the fix', async () => {
    const sim = await startCliSim(['--events', '5', '--no-event-search']);
    expect(sim.out()).toMatch(/no event search\)/);
    const tmp = configFor(sim.url);
    const poll = await punchgate(['poll', '--terminal', 'reception', '--config', tmp.path('pg.yaml')]);
    expect(poll.status).not.toBe(0);
    expect(poll.stdout + poll.stderr).toMatch(/does not search its event log \(.*notSupport.*\)/);
    expect(poll.stdout + poll.stderr).toMatch(
      /set terminals\[0\]\.listen: true .*punchgate terminals listen reception/,
    );
    expect(poll.stdout + poll.stderr).not.toMatch(/not as a Hikvision access-control terminal/);
  });
});
