import {
  encodeAttendance16,
  encodeAttendance40,
  encodeDataset,
  encodeUser28,
  encodeUser72,
  type ZkAttendance,
  type ZkUser,
} from '../../src/sources/zk/protocol/index.js';
import { FakeTerminal, type FakeTerminalOptions } from './fake-terminal.js';
import { ZkClient, type ZkClientOptions } from '../../src/sources/zk/client/index.js';

/** Deterministic attendance records with distinct ids and times (numeric ids: fit both layouts). */
export function makeAttendances(n: number, withUid = true): ZkAttendance[] {
  const out: ZkAttendance[] = [];
  for (let i = 0; i < n; i++) {
    const day = 1 + (i % 28);
    const sec = i % 86400;
    const hh = String(Math.floor(sec / 3600)).padStart(2, '0');
    const mm = String(Math.floor((sec % 3600) / 60)).padStart(2, '0');
    const ss = String(sec % 60).padStart(2, '0');
    out.push({
      uid: withUid ? (i % 60000) + 1 : 0,
      userId: String(1000 + (i % 5000)),
      verifyType: i % 3,
      state: i % 6,
      logTime: `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(day).padStart(2, '0')} ${hh}:${mm}:${ss}`,
      workCode: 0,
    });
  }
  return out;
}

export const dataset40 = (a: ZkAttendance[]) => encodeDataset(a.map(encodeAttendance40));
export const dataset16 = (a: ZkAttendance[]) => encodeDataset(a.map((r) => encodeAttendance16(r)));

export const USERS: ZkUser[] = [
  {
    uid: 1,
    privilege: 14,
    password: '1234',
    name: 'Zoë Łukasz',
    card: 4242,
    group: 1,
    userId: 'EMP-000000000000000000001'.slice(0, 24),
  },
  { uid: 2, privilege: 0, password: '', name: 'Bob', card: 0, group: 1, userId: '1005' },
];
export const users72 = () => encodeDataset(USERS.map(encodeUser72));
export const users28 = () =>
  encodeDataset(USERS.map((u, i) => encodeUser28({ ...u, userId: String(1000 + i), name: u.name.slice(0, 4) })));

/**
 * Starts a fake terminal and a client connected to it; `cleanup` stops both. The client's timeout
 * is 5 s (was 400 ms): the fake answers from the test's own process, which a loaded CI box may hold
 * for a second or more; a test of timeouts sets its own.
 */
export async function setup(term: FakeTerminalOptions, client: Partial<ZkClientOptions> = {}) {
  const terminal = new FakeTerminal(term);
  const port = await terminal.start();
  const zk = new ZkClient({ host: '127.0.0.1', port, transport: term.transport, timeoutMs: 5000, ...client });
  return {
    terminal,
    zk,
    port,
    cleanup: async () => {
      zk.destroy();
      await terminal.stop();
    },
  };
}
