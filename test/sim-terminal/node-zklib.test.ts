/**
 * Unmodified node-zklib 1.3.0 against the simulator: proves the simulator speaks the protocol
 * a third party speaks (docs/zk-protocol.md A1/A4/A9), over TCP and over UDP.
 *
 * node-zklib is CommonJS without types; it is loaded with createRequire and given a minimal
 * local type. Its side effects are contained: console.log is silenced, and the test runs in a
 * temporary cwd, where its error log (DDMMYYYY.err.log) would appear if one of its error paths ran.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatLogTime } from '../../src/punch.js';
import { decodeZkTime } from '../../src/sources/zk/protocol/time.js';
import { startTerminalSim, type TerminalSim } from '../../src/sim/terminal/index.js';
import { waitFor } from './raw-client.js';
import { tempDir } from '../helpers/tmp.js';

interface ZkUserTcp {
  uid: number;
  role: number;
  password: string;
  name: string;
  cardno: number;
  userId: string;
}
interface ZkUserUdp {
  uid: number;
  role: number;
  name: string;
  userId: number;
}
interface ZkLog {
  userSn?: number;
  deviceUserId: string | number;
  recordTime: Date;
  ip: string;
}
interface ZKLibInstance {
  createSocket(cbErr?: (e: unknown) => void, cbClose?: (t: string) => void): Promise<void>;
  getInfo(): Promise<{ userCounts: number; logCounts: number; logCapacity: number }>;
  getUsers(): Promise<{ data: (ZkUserTcp | ZkUserUdp)[]; err: unknown }>;
  getAttendances(cb?: (done: number, total: number) => void): Promise<{ data: ZkLog[]; err: unknown }>;
  getRealTimeLogs(cb: (e: { userId: string | number; attTime: Date }) => void): Promise<void>;
  executeCmd(command: number, data: string | Buffer): Promise<Buffer>;
  disconnect(): Promise<boolean>;
  connectionType: 'tcp' | 'udp' | null;
}
type ZKLibCtor = new (ip: string, port: number, timeout: number, inport: number) => ZKLibInstance;

const ZKLib = createRequire(import.meta.url)('node-zklib') as ZKLibCtor;

/**
 * The terminal's answer to the REG_EVENT that node-zklib's getRealTimeLogs sends without awaiting
 * it: once it came, the terminal has the subscription (it sets it before it answers). Waited for on
 * the library's own socket, registered after getRealTimeLogs so that its own listener is in place
 * first (it adds one only where none is). A fixed 100 ms wait instead missed a slow answer on a
 * loaded CI box by chance, and the punch made meanwhile never came as an event.
 */
function subscribed(lib: ZKLibInstance): Promise<void> {
  const inner = lib as unknown as {
    zklibTcp: { socket: NodeJS.EventEmitter | null };
    zklibUdp: { socket: NodeJS.EventEmitter | null };
  };
  return lib.connectionType === 'tcp'
    ? new Promise((resolve) => inner.zklibTcp.socket!.once('data', () => resolve()))
    : new Promise((resolve) => inner.zklibUdp.socket!.once('message', () => resolve()));
}

/** node-zklib builds dates in the process zone from the wall-clock fields: read them back the same way. */
const wall = (d: Date) =>
  formatLogTime(d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds());

let cwd = '';
let tmp: ReturnType<typeof tempDir> | undefined;
let sim: TerminalSim | null = null;
let zk: ZKLibInstance | null = null;
let consoleLog: ReturnType<typeof vi.spyOn>;

beforeAll(() => {
  cwd = process.cwd();
  tmp = tempDir('punchgate-zklib-');
  process.chdir(tmp.dir);
  consoleLog = vi.spyOn(console, 'log').mockImplementation(() => {});
});

afterEach(async () => {
  if (zk) await zk.disconnect().catch(() => {});
  zk = null;
  await sim?.stop();
  sim = null;
  // None of node-zklib's error paths ran (they append to an error log in the cwd).
  expect(fs.readdirSync(tmp!.dir)).toEqual([]);
});

afterAll(() => {
  consoleLog.mockRestore();
  process.chdir(cwd);
  tmp?.cleanup();
});

describe('node-zklib 1.3.0 over TCP', () => {
  it('downloads users and 3000 attendance records (chunked, paced)', async () => {
    sim = await startTerminalSim({
      generate: { users: 40, punches: 3000 },
      faults: { pacingMs: 3 },
      clock: '2024-02-29 12:34:56',
    });
    zk = new ZKLib('127.0.0.1', sim.port, 5000, 0);
    await zk.createSocket();
    expect(zk.connectionType).toBe('tcp');
    expect(consoleLog).toHaveBeenCalledWith('ok tcp');

    expect(await zk.getInfo()).toEqual({ userCounts: 40, logCounts: 3000, logCapacity: 100_000 });

    const users = await zk.getUsers();
    expect(users.err).toBeNull();
    expect(users.data.map((u) => [u.uid, u.userId, u.name, u.role])).toEqual(
      sim.users().map((u) => [u.uid, u.userId, u.name, u.privilege]),
    );

    const progress: number[] = [];
    const logs = await zk.getAttendances((done) => progress.push(done));
    expect(logs.err).toBeNull();
    expect(progress).toEqual([65472, 4 + 3000 * 40]);
    const uidOf = new Map(sim.users().map((u) => [u.userId, u.uid]));
    expect(logs.data.map((l) => [l.userSn, l.deviceUserId, wall(l.recordTime)])).toEqual(
      sim.punches().map((p) => [uidOf.get(p.userId), p.userId, p.logTime]),
    );

    // npm 1.3.0 has no getTime(); GET_TIME through executeCmd returns the packet without the TCP prefix.
    const t = await zk.executeCmd(201, '');
    expect(decodeZkTime(t.readUInt32LE(8)).slice(0, 15)).toBe('2024-02-29 12:3');
  });

  it('downloads a small dataset sent direct', async () => {
    sim = await startTerminalSim({
      users: [{ uid: 1, userId: '4711', name: 'Ada', card: 123456, password: '99' }],
      punches: [
        { userId: '4711', logTime: '2024-10-28 02:30:00', state: 0 },
        { userId: '4711', logTime: '2024-10-28 17:05:09', state: 1 },
      ],
      faults: { pacingMs: 3 },
    });
    zk = new ZKLib('127.0.0.1', sim.port, 5000, 0);
    await zk.createSocket();
    const users = await zk.getUsers();
    expect(users.data).toEqual([{ uid: 1, role: 0, password: '99', name: 'Ada', cardno: 123456, userId: '4711' }]);
    const logs = await zk.getAttendances();
    expect(logs.data.map((l) => [l.deviceUserId, wall(l.recordTime)])).toEqual([
      ['4711', '2024-10-28 02:30:00'],
      ['4711', '2024-10-28 17:05:09'],
    ]);
  });

  it('receives real-time punches', async () => {
    sim = await startTerminalSim({ generate: { users: 3, punches: 0 }, faults: { pacingMs: 3 } });
    zk = new ZKLib('127.0.0.1', sim.port, 5000, 0);
    await zk.createSocket();
    const seen: { userId: string | number; attTime: Date }[] = [];
    await zk.getRealTimeLogs((e) => seen.push(e));
    await subscribed(zk); // its REG_EVENT is not awaited
    sim.addPunch({ userId: '2', logTime: '2025-01-15 07:59:01' });
    await waitFor(() => seen.length === 1, 20_000, 'real-time event');
    expect([seen[0]!.userId, wall(seen[0]!.attTime)]).toEqual(['2', '2025-01-15 07:59:01']);
  });
});

describe('node-zklib 1.3.0 over UDP', () => {
  it('falls back to UDP and downloads users and attendance (28/16-byte records)', async () => {
    // No TCP listener on the port: node-zklib gets ECONNREFUSED and switches to UDP.
    sim = await startTerminalSim({ tcp: false, generate: { users: 30, punches: 1500 }, faults: { pacingMs: 1 } });
    zk = new ZKLib('127.0.0.1', sim.port, 5000, 0);
    await zk.createSocket();
    expect(zk.connectionType).toBe('udp');
    expect(consoleLog).toHaveBeenCalledWith('ok udp');

    expect(await zk.getInfo()).toEqual({ userCounts: 30, logCounts: 1500, logCapacity: 100_000 });
    const users = await zk.getUsers();
    expect(users.err).toBeNull();
    expect(users.data.map((u) => [u.uid, u.userId, u.name])).toEqual(
      sim.users().map((u) => [u.uid, Number(u.userId), u.name.slice(0, 8)]),
    );
    const logs = await zk.getAttendances();
    expect(logs.err).toBeNull();
    expect(logs.data.map((l) => [l.deviceUserId, wall(l.recordTime)])).toEqual(
      sim.punches().map((p) => [Number(p.userId), p.logTime]),
    );
  });

  it('receives real-time punches as 18-byte datagrams', async () => {
    sim = await startTerminalSim({ tcp: false, generate: { users: 3, punches: 0 } });
    zk = new ZKLib('127.0.0.1', sim.port, 5000, 0);
    await zk.createSocket();
    const seen: { userId: string | number; attTime: Date }[] = [];
    await zk.getRealTimeLogs((e) => seen.push(e));
    await subscribed(zk);
    sim.addPunch({ userId: '3', logTime: '2025-01-15 18:00:30' });
    await waitFor(() => seen.length === 1, 20_000, 'real-time event');
    expect([seen[0]!.userId, wall(seen[0]!.attTime)]).toEqual([3, '2025-01-15 18:00:30']);
  });
});
