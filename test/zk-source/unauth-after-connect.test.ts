import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { CMD, encodeFreeSizes } from '../../src/sources/zk/protocol/index.js';
import { FakeTerminal, reply } from '../zk-client/fake-terminal.js';
import { dataset40, makeAttendances } from '../zk-client/helpers.js';
import { journalFixture, zkConfig } from './helpers.js';

/**
 * ACK_UNAUTH ("connection not authorized", adrobinoga/zk-protocol) to a request after the terminal
 * opened the session. It was said as "comm key refused", with the comm key to check, although no
 * key had been refused. Two terminals answer so: firmware that opens the session without asking
 * for the login but wants it before it hands anything over (a K50 with a Communication Password,
 * raihanafroz/zkteco issue #21), read now after the login; and a terminal that ends a session it
 * had accepted (another program took it over, a restart), said as that.
 */
describe('ZK: "not authorized" after the session opened', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const counts = (conn: { sessionId: number }, req: Parameters<typeof reply>[0]) =>
    reply(req, CMD.ACK_OK, conn.sessionId, encodeFreeSizes({ users: 2, records: 5, recordCapacity: 100_000 }));

  it('a terminal that wants the comm key login only at its first request is logged in and read', async () => {
    const terminal = new FakeTerminal({
      transport: 'tcp',
      commKey: 4711,
      attendance: dataset40(makeAttendances(5)),
      // CONNECT answered OK; every request after it "not authorized" until the login.
      hook: (req, replies, conn) => (req.command === CMD.CONNECT ? [reply(req, CMD.ACK_OK, conn.sessionId)] : replies),
    });
    const port = await terminal.start();
    const fx = journalFixture();
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(port, { commKey: 4711 }), fx.deps);
    expect(r, r.error).toMatchObject({ ok: true, records: 5, added: 5 });
    expect(terminal.requests.filter((p) => p.command === CMD.AUTH)).toHaveLength(1);

    // With a wrong key the login is refused: that, and only that, is a comm key refused.
    const wrong = await pollTerminal(zkConfig(port, { commKey: 1 }), fx.deps);
    expect(wrong.error).toBe(`comm key refused by 127.0.0.1:${port}`);
  });

  it('a terminal that ends a session it accepted is said as such, not as a comm key refused', async () => {
    let ended = false;
    const terminal = new FakeTerminal({
      transport: 'tcp',
      attendance: dataset40(makeAttendances(5)),
      hook: (req, replies, conn) => {
        if (req.command === CMD.GET_FREE_SIZES) {
          ended = true;
          return [counts(conn, req)];
        }
        if (!ended || req.command === CMD.CONNECT) return replies;
        if (req.command === CMD.AUTH) return [reply(req, CMD.ACK_OK, conn.sessionId)];
        return [reply(req, CMD.ACK_UNAUTH, conn.sessionId)];
      },
    });
    const port = await terminal.start();
    const fx = journalFixture();
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(port), fx.deps);
    expect(r.ok).toBe(false);
    expect(r.error).toBe(
      `127.0.0.1:${port} accepted punchgate's session, then answered "not authorized" to a request: the terminal ended the session (another program connected to it, or it restarted); nothing is lost, its punches wait on the terminal`,
    );
    expect(fx.deps.ledger.get('gate-1')?.lastErrorFix).toMatch(/^check that no other program talks to the terminal/);
  });
});
