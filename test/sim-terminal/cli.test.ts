import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeCommKey } from '../../src/sources/zk/protocol/commkey.js';
import { CMD } from '../../src/sources/zk/protocol/constants.js';
import { decodeFreeSizes } from '../../src/sources/zk/protocol/free-sizes.js';
import { decodeUsers } from '../../src/sources/zk/protocol/records.js';
import { RawTcp, waitFor, WRRQ_ATTLOG, WRRQ_USERS } from './raw-client.js';
import { tempDir } from '../helpers/tmp.js';
import { expectNoSecret } from '../helpers/secret.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/sim-cli.mjs', import.meta.url));

interface Run {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
}

const runs: Run[] = [];
const dirs: ReturnType<typeof tempDir>[] = [];

function run(args: string[]): Run {
  const child = spawn(process.execPath, [FIXTURE, 'sim', 'terminal', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const r = { child, out: () => out, err: () => err, exit };
  runs.push(r);
  return r;
}

async function listening(r: Run): Promise<number> {
  const re = /ZK terminal simulator (\S+) listening on 127\.0\.0\.1:(\d+) \((tcp\+udp|tcp|udp)\)\n/;
  await waitFor(() => re.test(r.out()) || r.child.exitCode !== null, 10_000, `listening line; stderr: ${r.err()}`);
  const m = re.exec(r.out());
  if (!m) throw new Error(`no listening line: ${r.out()} ${r.err()}`);
  return Number(m[2]);
}

afterEach(() => {
  for (const r of runs.splice(0)) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  for (const d of dirs.splice(0)) d.cleanup();
});

describe('punchgate sim terminal', () => {
  it('prints one line when listening, punches, never prints the comm key and stops on SIGTERM', async () => {
    const r = run([
      '--port',
      '0',
      '--users',
      '3',
      '--punches',
      '5',
      '--punch-every',
      '0.05',
      '--comm-key',
      '987654',
      '--serial',
      'SNCLI1',
    ]);
    const port = await listening(r);
    expect(r.out().split('\n')[0]).toBe(`ZK terminal simulator SNCLI1 listening on 127.0.0.1:${port} (tcp+udp)`);
    const c = await RawTcp.open(port);
    const con = await c.connect();
    expect(con.command).toBe(CMD.ACK_UNAUTH);
    expect((await c.request(CMD.AUTH, makeCommKey(987654, con.sessionId))).command).toBe(CMD.ACK_OK);
    const sizes = decodeFreeSizes((await c.request(CMD.GET_FREE_SIZES)).data);
    expect(sizes.users).toBe(3);
    expect(sizes.records).toBeGreaterThanOrEqual(5);
    await waitFor(() => (r.out().match(/"msg":"punch"/g) ?? []).length >= 2, 20_000, 'punch log lines');
    c.close();
    r.child.kill('SIGTERM');
    expect(await r.exit).toBe(0);
    expectNoSecret(r.out() + r.err(), '987654');
  });

  it('loads users and punches from CSV and JSON files, reports bad lines, exits 65 after SIGINT', async () => {
    const dir = tempDir('punchgate-simcli-');
    dirs.push(dir);
    const users = dir.path('users.csv');
    const punches = dir.path('punches.json');
    fs.writeFileSync(
      users,
      'uid,userId,name,privilege,card\n1,1001,"Doe, Jane",14,555\n2,1002,Bob,0,0,extra\n# comment\n,1003,Cleo,0,0\n',
    );
    fs.writeFileSync(
      punches,
      JSON.stringify({
        punches: [
          { userId: '1001', logTime: '2024-05-02 08:01:00' },
          { userId: '1002', logTime: 'yesterday' },
        ],
      }),
    );
    const r = run(['--port', '0', '--no-udp', '--file', users, '--file', punches]);
    const port = await listening(r);
    expect(r.out()).toContain('(tcp)\n');
    expect(r.err()).toContain(`${users}:3: 6 fields, the header has 5 (skipped)`);
    expect(r.err()).toContain(`${punches}: punches[1]: not a log time`);
    const c = await RawTcp.open(port);
    await c.connect();
    const ds = await c.request(CMD.DATA_WRRQ, WRRQ_USERS);
    expect(
      decodeUsers(ds.data, { recordSize: 72 }).records.map((u) => [u.uid, u.userId, u.name, u.privilege, u.card]),
    ).toEqual([
      [1, '1001', 'Doe, Jane', 14, 555],
      [2, '1003', 'Cleo', 0, 0],
    ]);
    expect(decodeFreeSizes((await c.request(CMD.GET_FREE_SIZES)).data).records).toBe(1);
    c.close();
    r.child.kill('SIGINT');
    expect(await r.exit).toBe(65);
  });

  it('--seed: the same seed makes the same users and punches, another seed others (several terminals in one rehearsal)', async () => {
    const usersOf = async (seed: string) => {
      const r = run(['--port', '0', '--no-udp', '--users', '5', '--punches', '20', '--seed', seed]);
      const c = await RawTcp.open(await listening(r));
      await c.connect();
      const users = decodeUsers((await c.request(CMD.DATA_WRRQ, WRRQ_USERS)).data, { recordSize: 72 }).records;
      c.close();
      r.child.kill('SIGTERM');
      await r.exit;
      return users.map((u) => `${u.userId} ${u.name}`);
    };
    const one = await usersOf('1');
    expect(await usersOf('1')).toEqual(one);
    expect(await usersOf('2')).not.toEqual(one);
  });

  it('--refuse-log 4989: the attendance log download is answered with that code, the users still come', async () => {
    const r = run(['--port', '0', '--no-udp', '--users', '3', '--punches', '5', '--refuse-log', '4989']);
    const c = await RawTcp.open(await listening(r));
    await c.connect();
    expect((await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG)).command).toBe(4989);
    expect(decodeUsers((await c.request(CMD.DATA_WRRQ, WRRQ_USERS)).data, { recordSize: 72 }).records).toHaveLength(3);
    c.close();
    r.child.kill('SIGTERM');
    await r.exit;
  });

  it('exits 65 on a file it cannot read', async () => {
    const r = run(['--port', '0', '--file', '/nonexistent/punches.csv']);
    expect(await r.exit).toBe(65);
    expect(r.err()).toContain('/nonexistent/punches.csv');
  });
});
