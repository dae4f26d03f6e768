import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { defaultClientFactory } from '../../src/sources/zk/poll.js';
import { zkTerminalSchema } from '../../src/config/terminals.js';
import { ZkConnectionError, ZkTimeoutError } from '../../src/sources/zk/client/index.js';
import { describeZkFault } from '../../src/sources/zk/fault.js';
import { CMD, decodePacket, encodePacket, wrapTcp } from '../../src/sources/zk/protocol/index.js';

/** The fix for a ZK terminal polls cannot reach names what can hold its one session: punchgate's own real-time connection too. */
describe('a ZK terminal that refuses or drops the poll', () => {
  const cfg = (realtime: boolean) =>
    zkTerminalSchema.parse({ name: 'onesess', kind: 'zk', host: '127.0.0.1', port: 24372, realtime });

  it('with realtime on, the fix says its own real-time connection may hold the only session (found by a new-user trial)', () => {
    for (const e of [
      new ZkConnectionError('closed', { code: 'ECONNRESET' }),
      new ZkConnectionError('refused', { code: 'ECONNREFUSED' }),
      new ZkTimeoutError('no reply to CONNECT'),
    ]) {
      expect(describeZkFault(e, cfg(true), 'terminals[0]').fix).toContain(
        "punchgate's real-time connection holds it: set terminals[0].realtime: false",
      );
      expect(describeZkFault(e, cfg(false), 'terminals[0]').fix).not.toContain('realtime');
    }
  });

  it('a UDP terminal that refuses: the fix speaks of its UDP port, not of a TCP session (found by an adversarial trial)', () => {
    const udp = zkTerminalSchema.parse({ name: 'u', kind: 'zk', host: '127.0.0.1', port: 24372, transport: 'udp' });
    const fault = describeZkFault(new ZkConnectionError('refused', { code: 'ECONNREFUSED' }), udp, 'terminals[0]');
    expect(fault.fix).toContain('the terminal takes ZK over UDP; if not, set terminals[0].transport: tcp');
    expect(fault.fix).not.toContain('TCP session');
  });

  it('a port that answers bytes that are no ZK packet and closes is said as another service, not the cable (found by an adversarial trial)', async () => {
    const { fault, port } = await faultOfConnect(
      (socket) => socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')),
      { timeoutMs: 2000 },
    );
    expect(fault.cause).toBe(`127.0.0.1:${port} answered, but not as a ZK terminal does`);
    expect(fault.fix).toContain('check that terminals[0].host and terminals[0].port point at the terminal');
  });

  it('a terminal that answers every request with another reply id is said to answer, not to be unreachable (found by an adversarial trial)', async () => {
    // Answers CONNECT with ACK_OK, numbered one past the request's reply id.
    const { fault, port } = await faultOfConnect(
      (socket) =>
        socket.on('data', (b: Buffer) => {
          const replyId = (decodePacket(b.subarray(8)).replyId + 1) & 0xffff;
          socket.write(wrapTcp(encodePacket({ command: CMD.ACK_OK, sessionId: 7, replyId, data: Buffer.alloc(0) })));
        }),
      { timeoutMs: 500, transport: 'tcp' },
    );
    expect(fault.cause).toBe(
      `127.0.0.1:${port} answered within 0.5 s, but never to punchgate's request (1 packet numbered for another request)`,
    );
    expect(fault.fix).toContain('no other program talks to the terminal at the same time');
    expect(fault.fix).toContain('terminals[0].transport: udp');
    expect(fault.fix).not.toContain('cable');
  });
});

/** What the status says of a connect to a fake terminal on 127.0.0.1 that answers as `peer` does. */
async function faultOfConnect(peer: (socket: net.Socket) => void, extra: Record<string, unknown>) {
  const server = net.createServer(peer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as net.AddressInfo).port;
    const cfg = zkTerminalSchema.parse({ name: 'gate-1', kind: 'zk', host: '127.0.0.1', port, ...extra });
    const client = defaultClientFactory(cfg);
    const err = await client.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    client.destroy();
    return { fault: describeZkFault(err, cfg, 'terminals[0]'), port };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
