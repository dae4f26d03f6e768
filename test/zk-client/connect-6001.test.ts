/**
 * 2025+ firmware (MB10-VL, MB460 Plus, SenseFace 3A ZAM70 Ver3.3.12) answers CONNECT with 6001
 * where older firmware answers ACK_UNAUTH (2005); pyzk, authenticating only on 2005, fails
 * (pyzk issue #253). The client logs in with the comm key after either; a refusal is its own
 * error, whose fault names the push route; a terminal that never answers does not hang it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { zkTerminalSchema } from '../../src/config/terminals.js';
import { startTerminalSim, type SimFirmware, type TerminalSim } from '../../src/sim/terminal/index.js';
import { ZkClient, ZkTimeoutError } from '../../src/sources/zk/client/index.js';
import { describeZkFault } from '../../src/sources/zk/fault.js';
import { CMD, ZkConnectRefusedError } from '../../src/sources/zk/protocol/index.js';

describe('a CONNECT answered with 6001', () => {
  let sim: TerminalSim | undefined;
  let zk: ZkClient | undefined;
  afterEach(async () => {
    zk?.destroy();
    await sim?.stop();
    sim = zk = undefined;
  });

  async function connect(firmware: SimFirmware, terminalKey: number, clientKey: number, extra = {}) {
    sim = await startTerminalSim({ commKey: terminalKey, firmwareQuirks: firmware, punches: [], ...extra });
    // 3 s: the simulator answers from the test's own process, which a loaded CI box may hold for a
    // second or more (at 500 ms a login failed by chance); still far under the hang bound below.
    zk = new ZkClient({ host: '127.0.0.1', port: sim.port, transport: 'tcp', commKey: clientKey, timeoutMs: 3000 });
    await zk.connect();
    return zk;
  }

  it('logs in with the comm key and reads the terminal', async () => {
    const c = await connect({ connectReply: 6001 }, 808080, 808080);
    expect(await c.getSerialNumber()).toMatch(/^SIM/);
    expect((await c.getInfo()).records).toBe(0);
  });

  it('logs in with key 0 when the terminal has none set', async () => {
    const c = await connect({ connectReply: 6001 }, 0, 0);
    expect((await c.getInfo()).records).toBe(0);
  });

  it('a refused login is ZkConnectRefusedError (the key never in it); its fault names the push route', async () => {
    const err = await connect({ connectReply: 6001, connectAuth: 'refuse' }, 808080, 808080).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZkConnectRefusedError);
    expect((err as ZkConnectRefusedError).connectReply).toBe(6001);
    expect((err as Error).message).not.toContain('808080');
    const cfg = zkTerminalSchema.parse({ name: 'gate-1', kind: 'zk', host: '127.0.0.1', port: sim!.port });
    const fault = describeZkFault(err, cfg, 'terminals[0]');
    expect(fault.cause).toMatch(/^gate-1 \(127\.0\.0\.1:\d+\) answered the ZK connect with code 6001 /);
    expect(fault.fix).toMatch(/kind: adms/);
    expect(fault.fix).toMatch(/terminals\[0\]\.commKey/);
  });

  it('a wrong key after 6001 is refused like any wrong key', async () => {
    const err = await connect({ connectReply: 6001 }, 808080, 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZkConnectRefusedError);
  });

  it('a terminal that never answers the login: a timeout, not a hang', async () => {
    const started = Date.now();
    const err = await connect({ connectReply: 6001 }, 0, 0, { faults: { dropReplyTo: [CMD.AUTH] } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ZkTimeoutError);
    // Not a hang; room for a loaded CI box.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
