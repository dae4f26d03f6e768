/**
 * The user commands as a site admin runs them: `punchgate sim terminal` (two simulators, with
 * generated fingerprints and a write fault) and `punchgate terminals sync-users | copy-templates |
 * restore-user | backups` as child processes of the built CLI, against one config and journal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { tempDir } from '../helpers/tmp.js';
import { runPunchgate } from '../helpers/cli.js';
import { Journal } from '../../src/journal/journal.js';

const children: ChildProcess[] = [];
let tmp: ReturnType<typeof tempDir> | null = null;
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  tmp?.cleanup();
  tmp = null;
});

/** A `punchgate sim terminal` child process; its port once it says it listens (an event, not a poll). */
function simTerminal(args: string[]): Promise<number> {
  const child = spawn(
    process.execPath,
    ['dist/punchgate.js', 'sim', 'terminal', '--port', '0', '--pacing', '0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const re = /listening on 127\.0\.0\.1:(\d+)/;
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = re.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`simulator exited ${code} before listening: ${out}`)));
  });
}

/**
 * The built CLI as a child process. Each run is a cold start of the whole bundle: about 0.6 s on
 * an idle box, 5-6 s on a loaded one, so the test's budget below counts its 11 runs and 2 starts (73 s seen at load 17 on 2 cores).
 */
const cli = (...args: string[]) =>
  runPunchgate(['--config', tmp!.path('punchgate.yaml'), ...args], { timeoutMs: 60_000 });

describe('punchgate terminals sync-users, copy-templates, restore-user, backups (child processes)', () => {
  it('a first sync broken by a write fault, a rerun that finishes, then fingerprints copied, a leaver removed and restored', async () => {
    tmp = tempDir('punchgate-roster-cli-');
    // "enrol" holds 4 generated users (ids 1..4) with 2 stand-in fingerprints each.
    // Both simulators start at once (two cold starts side by side, not one after the other).
    const [enrol, door] = await Promise.all([
      simTerminal(['--users', '4', '--punches', '0', '--fingers', '2', '--fail-write-after', '1']),
      simTerminal(['--users', '0', '--punches', '0', '--serial', 'DOOR0001']),
    ]);
    writeFileSync(
      tmp.path('punchgate.yaml'),
      stringify({
        site: 'plant-a',
        journal: { path: 'journal.db' },
        hrms: { baseUrl: 'http://127.0.0.1:9' },
        terminals: [
          { name: 'enrol', kind: 'zk', host: '127.0.0.1', port: enrol, transport: 'tcp', timeoutMs: 5000 },
          { name: 'door', kind: 'zk', host: '127.0.0.1', port: door, transport: 'tcp', timeoutMs: 5000 },
        ],
        terminalUsers: { backupRetentionDays: 30 },
      }),
    );
    // Only `punchgate run` creates a journal: make it as the daemon would.
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
    writeFileSync(
      tmp.path('roster.csv'),
      'code,name,card,active\r\n1,Ana One,101,1\r\n2,Ben Two,,\r\n3,Chen Three,,0\r\n9,New Hire,909,\r\n',
    );

    const first = await cli(
      'terminals',
      'sync-users',
      '--roster',
      tmp.path('roster.csv'),
      '--terminal',
      'enrol',
      '--json',
    );
    expect(first.status, first.stderr).toBe(75);
    const report = JSON.parse(first.stdout);
    expect(report.exitCode).toBe(75);
    const statuses = report.terminals[0].changes.map(
      (c: { action: string; code: string; status: string }) => `${c.action} ${c.code} ${c.status}`,
    );
    expect(statuses[0]).toBe('remove 3 applied');
    expect(statuses[1]).toMatch(/^update 1 (failed|unknown)$/);
    expect(statuses.slice(2).every((s: string) => s.endsWith('not-attempted'))).toBe(true);

    const second = await cli('terminals', 'sync-users', '--roster', tmp.path('roster.csv'), '--terminal', 'enrol');
    expect(second.status, second.stdout + second.stderr).toBe(0);
    const third = await cli('terminals', 'sync-users', '--roster', tmp.path('roster.csv'), '--terminal', 'enrol');
    expect(third.stdout).toContain('0 added, 0 updated, 0 removed; 3 unchanged, 1 not in the roster (left alone)');

    const users = await cli('terminals', 'users', 'enrol', '--json');
    const list = (JSON.parse(users.stdout) as { userId: string; name: string; card: number }[]).map(
      (u) => `${u.userId} ${u.name} ${u.card}`,
    );
    expect(list).toHaveLength(4);
    expect(list).toEqual(expect.arrayContaining(['1 Ana One 101', '2 Ben Two 0', '9 New Hire 909']));
    expect(list.some((u) => u.startsWith('4 '))).toBe(true);

    const copy = await cli('terminals', 'copy-templates', '--from', 'enrol', '--to', 'door', '--json');
    expect(copy.status, copy.stderr).toBe(0);
    const copied = JSON.parse(copy.stdout).terminals[0].changes;
    expect(
      copied
        .map((c: { code: string; fingers: number[]; status: string }) => `${c.code} ${c.fingers} ${c.status}`)
        .sort(),
    ).toEqual(['1 0,1 applied', '2 0,1 applied', '4 0,1 applied']);

    const leave = await cli(
      'terminals',
      'sync-users',
      '--roster',
      tmp.path('roster.csv'),
      '--terminal',
      'door',
      '--remove-absent',
    );
    expect(leave.status, leave.stderr).toBe(0);
    expect(leave.stdout).toMatch(
      /- remove 4 +".*" \(not in the roster, uid 3\): applied \(backed up with 2 fingerprint\(s\)\)/,
    );

    // Asking for a backup never made only reads the journal: it runs beside the listing.
    const [backups, missing] = await Promise.all([
      cli('terminals', 'backups'),
      cli('terminals', 'restore-user', 'door', '77'),
    ]);
    expect(backups.stdout).toMatch(
      /door +4 +.* +2 +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d +-/,
    );
    expect(backups.stdout).toMatch(/enrol +3 /);

    const restore = await cli('terminals', 'restore-user', 'door', '4');
    expect(restore.status, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/^door: restored 4 ".*" \(uid 3\) with 2 fingerprint\(s\)/);
    const check = await cli('terminals', 'copy-templates', '--from', 'enrol', '--to', 'door', '--code', '4');
    expect(check.stdout).toContain('added 0 user(s), fingerprints for 0 existing user(s); 1 unchanged');

    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('no backup of code 77 from door (backups are kept 30 days');
  }, 180_000);
});
