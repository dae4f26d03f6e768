import { afterEach, describe, expect, it } from 'vitest';
import { CMD } from '../../src/sources/zk/protocol/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { FakeTerminal, type Hook } from '../zk-client/fake-terminal.js';
import { journalFixture, zkConfig } from './helpers.js';

/**
 * The serial and firmware questions may go unanswered without failing the poll; their timeout
 * still closes the connection. Found by the UDP fuzz (trial Y2): the next question then failed
 * with "not connected", and the status said "the terminal closed the connection" (check the
 * cable) for a terminal that had said nothing. The fault said is the one that closed it.
 */
describe('ZK: a question left unanswered, then the next one', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it.each([
    [CMD.GET_VERSION, 'no answer from'],
    [CMD.OPTIONS_RRQ, 'no answer from'],
  ])('no reply to command %i: the poll says %j, not "closed the connection"', async (silent, said) => {
    const hook: Hook = (req, replies) => (req.command === silent ? [] : replies);
    const fake = new FakeTerminal({ transport: 'udp', attendance: Buffer.alloc(4), hook });
    const fx = journalFixture();
    cleanups.push(() => fake.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(await fake.start(), { transport: 'udp', timeoutMs: 150 }), fx.deps);
    expect(r.ok).toBe(false);
    expect(r.error).toContain(said);
    expect(r.error).not.toContain('closed the connection');
  });
});
