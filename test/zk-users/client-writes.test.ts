/**
 * The ZK client's user side against the terminal simulator: user writes in the layout the
 * terminal serves, deletes, templates read back byte for byte, capacity refusals, the device
 * disabled and enabled, and a write that fails midway.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim, type TerminalSim, type TerminalSimOptions } from '../../src/sim/terminal/index.js';
import { ZkClient, ZkConnectionError, ZkProtocolError } from '../../src/sources/zk/client/index.js';
import { encodeUserRecord, patchUserRecord, type ZkUser } from '../../src/sources/zk/protocol/index.js';

let sim: TerminalSim | null = null;
let client: ZkClient | null = null;
afterEach(async () => {
  client?.destroy();
  await sim?.stop();
  sim = client = null;
});

async function open(opts: TerminalSimOptions, transport: 'tcp' | 'udp' = 'tcp') {
  sim = await startTerminalSim(opts);
  client = new ZkClient({ host: '127.0.0.1', port: sim.port, transport, timeoutMs: 5000 });
  await client.connect();
  return { sim, zk: client };
}

const user = (uid: number, userId: string, name: string, card = 0): ZkUser => ({
  uid,
  privilege: 0,
  password: '',
  name,
  card,
  group: 1,
  userId,
});

const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

describe('ZK user writes against the simulator', () => {
  it('writes a 72-byte user over TCP, updates it in place and deletes it', async () => {
    const { sim, zk } = await open({ users: [{ uid: 1, userId: '1001', name: 'Ann', privilege: 14, password: '12' }] });
    const before = await zk.getUserTable();
    expect(before.recordSize).toBe(72);
    await zk.writeUser(encodeUserRecord(user(2, 'EMP-0002', 'Zoë Łukasz', 5551), 72));
    const ann = before.users[0]!;
    await zk.writeUser(patchUserRecord(ann.raw, { name: 'Ann Lee', card: 77 }));
    expect(sim.users()).toEqual([
      { uid: 1, userId: '1001', name: 'Ann Lee', privilege: 14, card: 77, password: '12' },
      { uid: 2, userId: 'EMP-0002', name: 'Zoë Łukasz', privilege: 0, card: 5551, password: '' },
    ]);
    await zk.deleteUser(1);
    expect(sim.users().map((u) => u.userId)).toEqual(['EMP-0002']);
    await expect(zk.deleteUser(1)).rejects.toThrow(ZkProtocolError);
    expect(sim.writeCount()).toBe(3);
  });

  it('writes 28-byte users over UDP (numeric ids, 8-byte names)', async () => {
    const { sim, zk } = await open({ users: [{ uid: 3, userId: '42', name: 'Old' }] }, 'udp');
    const t = await zk.getUserTable();
    expect(t.recordSize).toBe(28);
    await zk.writeUser(encodeUserRecord(user(4, '4711', 'Bartholomew', 9), 28));
    expect(sim.users().find((u) => u.uid === 4)).toMatchObject({ userId: '4711', name: 'Bartholo', card: 9 });
    expect((await zk.getUserTable()).users.map((u) => u.user.userId)).toEqual(['42', '4711']);
  });

  it('saves users with templates and serves the templates back byte for byte', async () => {
    const { sim, zk } = await open({ users: [] });
    const rec = encodeUserRecord(user(7, '1007', 'Finn'), 72);
    const f0 = bytes(600, 1);
    const f6 = bytes(1503, 2);
    await zk.saveUserTemplates([
      {
        record: rec,
        templates: [
          { finger: 0, template: f0 },
          { finger: 6, template: f6 },
        ],
      },
    ]);
    expect(sim.users()).toMatchObject([{ uid: 7, userId: '1007', name: 'Finn' }]);
    const read = await zk.getTemplates();
    expect(read.malformedBytes).toBe(0);
    expect(read.templates).toEqual([
      { uid: 7, finger: 0, valid: 1, template: f0 },
      { uid: 7, finger: 6, valid: 1, template: f6 },
    ]);
    expect((await zk.getInfo()).fingerprints).toBe(2);
    await zk.deleteUser(7);
    expect((await zk.getTemplates()).templates).toEqual([]);
  });

  it('refuses a user beyond the capacity, a user id held by another uid, and templates beyond theirs', async () => {
    const { sim, zk } = await open({
      users: [{ uid: 1, userId: '1', name: 'A' }],
      userCapacity: 2,
      fingerprintCapacity: 1,
    });
    await zk.writeUser(encodeUserRecord(user(2, '2', 'B'), 72));
    await expect(zk.writeUser(encodeUserRecord(user(3, '3', 'C'), 72))).rejects.toThrow(
      /USER_WRQ\(8\) for uid 3 with ACK_ERROR/,
    );
    await expect(zk.writeUser(encodeUserRecord(user(2, '1', 'B'), 72))).rejects.toThrow(ZkProtocolError);
    const two = [
      { finger: 0, template: bytes(10, 1) },
      { finger: 1, template: bytes(10, 2) },
    ];
    await expect(
      zk.saveUserTemplates([{ record: encodeUserRecord(user(2, '2', 'B'), 72), templates: two }]),
    ).rejects.toThrow(/SAVE_USERTEMPS/);
    expect(sim.templates()).toEqual([]);
    expect(sim.users().map((u) => u.userId)).toEqual(['1', '2']);
  });

  it('disables and enables the device, and REFRESHDATA is counted', async () => {
    const { sim, zk } = await open({});
    await zk.disableDevice();
    expect(sim.deviceEnabled()).toBe(false);
    await zk.disconnect();
    expect(sim.deviceEnabled()).toBe(false);
    await zk.connect();
    await zk.refreshData();
    await zk.enableDevice();
    expect(sim.deviceEnabled()).toBe(true);
    expect(sim.refreshCount()).toBe(1);
    expect(await zk.getOption('~ZKFPVersion')).toBe('10');
    expect(await zk.getOption('~NoSuchOption')).toBeNull();
  });

  it('a write failing midway: ACK_ERROR in error mode, a cut connection in disconnect mode; one failure each', async () => {
    const { sim, zk } = await open({ faults: { failWriteAfter: 1, failWriteMode: 'error' } });
    await zk.writeUser(encodeUserRecord(user(1, '1', 'A'), 72));
    await expect(zk.writeUser(encodeUserRecord(user(2, '2', 'B'), 72))).rejects.toThrow(ZkProtocolError);
    await zk.writeUser(encodeUserRecord(user(3, '3', 'C'), 72));
    sim.setFaults({ failWriteAfter: 0, failWriteMode: 'disconnect' });
    await expect(zk.writeUser(encodeUserRecord(user(4, '4', 'D'), 72))).rejects.toThrow(ZkConnectionError);
    expect(zk.connected).toBe(false);
    expect(sim.users().map((u) => u.userId)).toEqual(['1', '3']);
  });
});
