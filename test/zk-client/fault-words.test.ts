import { describe, expect, it } from 'vitest';
import { zkTerminalSchema } from '../../src/config/terminals.js';
import { ZkConnectionError, ZkTimeoutError } from '../../src/sources/zk/client/index.js';
import { describeZkFault } from '../../src/sources/zk/fault.js';

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
});
