import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { activeZkNotes } from '../../src/sources/zk/notes.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { ZkClient } from '../../src/sources/zk/client/index.js';
import { CMD, encodeFreeSizes } from '../../src/sources/zk/protocol/index.js';
import { FakeTerminal, reply } from '../zk-client/fake-terminal.js';
import { dataset40, makeAttendances } from '../zk-client/helpers.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

describe('ZK log cleared while someone punches', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('a punch made between the last count and the clear is never wiped unread', async () => {
    const sim = await startTerminalSim({
      punches: [
        { userId: '1', logTime: '2025-01-01 08:00:00' },
        { userId: '2', logTime: '2025-01-01 09:00:00' },
      ],
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const cfg = zkConfig(sim.port, { clearAfterDays: 30 });
    expect(await pollTerminal(cfg, fx.deps)).toMatchObject({ ok: true, added: 2, cleared: false });
    fx.journal.settle(fx.journal.claim(2).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    // The poll's first count, then the count just before the clear: someone punches right after it.
    sim.setFaults({ doorPunchAfterCounts: 1 });
    const r = await pollTerminal(cfg, fx.deps);
    expect(r).toMatchObject({ ok: true, cleared: true });
    // Disabled from the count to the clear, the terminal refused the punch; made again once enabled.
    const onTerminal = sim.punches().filter((p) => p.userId === '424242').length;
    const journalled = journalKeys(fx.journal).filter((k) => k.startsWith('424242@')).length;
    expect(onTerminal + journalled).toBe(1);
    expect(sim.deviceEnabled()).toBe(true);
  });

  it('a download holding one record twice (in place of another) never clears the log', async () => {
    const sim = await startTerminalSim({
      punches: [
        { userId: '1', logTime: '2025-01-01 08:00:00' },
        { userId: '2', logTime: '2025-01-01 09:00:00' },
        { userId: '3', logTime: '2025-01-01 10:00:00' },
      ],
      firmwareQuirks: { doublesRecord: true },
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const cfg = zkConfig(sim.port, { clearAfterDays: 30 });
    // The terminal sends 1, 2, 2: user 3's punch never comes, yet the count (3) matches.
    expect(await pollTerminal(cfg, fx.deps)).toMatchObject({ ok: true, added: 2, records: 3 });
    fx.journal.settle(fx.journal.claim(10).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    expect(await pollTerminal(cfg, fx.deps)).toMatchObject({ ok: true, cleared: false });
    expect(sim.clearCount()).toBe(0);
    expect(sim.punches().map((p) => p.userId)).toEqual(['1', '2', '3']);
    // Said in the status, not only in the log: user 3's punch is never read over the network, and
    // the log fills; the terminal's own USB export is the way to it.
    const [note] = activeZkNotes(fx.journal.sourceState, cfg.name, Date.now());
    expect(note).toMatchObject({ topic: 'doubled' });
    expect(note!.cause).toMatch(
      /^its log downloads hold 1 record twice \(user 2 at 2025-01-01 09:00:00\): a record sent twice may stand in place of a punch .*, so punchgate does not clear its log$/,
    );
    expect(note!.fix).toMatch(/punchgate import --terminal gate-1 \/media\/usb\/\S+_attlog\.dat/);
    // Its firmware updated: a download without doubles takes the note away.
    const fixed = await startTerminalSim({ punches: sim.punches() });
    cleanups.push(() => fixed.stop());
    expect(await pollTerminal({ ...cfg, port: fixed.port }, fx.deps)).toMatchObject({ ok: true, added: 1 });
    expect(activeZkNotes(fx.journal.sourceState, cfg.name, Date.now())).toEqual([]);
  });

  // A ZK terminal stays disabled when the session that disabled it ends without enabling it: a
  // daemon killed between the two (or an enable not answered) left nobody able to punch, and no
  // later poll enabled it. The mark written before the disable makes the next poll enable it first.
  it('a terminal left disabled by a poll stopped between its disable and enable is enabled by the next poll', async () => {
    const sim = await startTerminalSim({ punches: [{ userId: '1', logTime: '2025-01-01 08:00:00' }] });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const cfg = zkConfig(sim.port, { clearAfterDays: 30 });
    expect(await pollTerminal(cfg, fx.deps)).toMatchObject({ ok: true, added: 1, cleared: false });
    fx.journal.settle(fx.journal.claim(1).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    // The clear's enable is answered by no reply (it times out): the poll ends with its mark kept.
    sim.setFaults({ dropReplyTo: [CMD.ENABLEDEVICE], dropReplyOnce: true });
    await pollTerminal({ ...cfg, timeoutMs: 500 }, fx.deps);
    expect(fx.deps.state.get(cfg.name, 'zk-left-disabled')).toMatch(/^\d{4}-/);
    // A process killed at that moment: the terminal disabled, as another session leaves it.
    const other = new ZkClient({ host: '127.0.0.1', port: sim.port, transport: 'tcp', timeoutMs: 5000 });
    await other.connect();
    await other.disableDevice();
    await other.disconnect();
    expect(sim.deviceEnabled()).toBe(false);

    expect(await pollTerminal(cfg, fx.deps)).toMatchObject({ ok: true });
    expect(sim.deviceEnabled()).toBe(true);
    expect(fx.deps.state.get(cfg.name, 'zk-left-disabled') ?? '').toBe('');
  });

  it('a terminal that refuses the enable after such a stop is still read, and the enable tried again at the next poll', async () => {
    const terminal = new FakeTerminal({
      transport: 'tcp',
      attendance: dataset40(makeAttendances(3)),
      hook: (req, replies, conn) =>
        req.command === CMD.ENABLEDEVICE
          ? [reply(req, CMD.ACK_ERROR, conn.sessionId)]
          : req.command === CMD.GET_FREE_SIZES
            ? [reply(req, CMD.ACK_OK, conn.sessionId, encodeFreeSizes({ users: 3, records: 3, recordCapacity: 1000 }))]
            : replies,
    });
    const port = await terminal.start();
    const fx = journalFixture();
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const cfg = zkConfig(port);
    fx.deps.state.set({ terminal: cfg.name, key: 'zk-left-disabled', value: '2026-12-02T08:00:00.000Z' });
    expect(await pollTerminal(cfg, fx.deps)).toMatchObject({ ok: true, added: 3 });
    expect(fx.deps.state.get(cfg.name, 'zk-left-disabled')).toBe('2026-12-02T08:00:00.000Z');
    expect(terminal.requests.filter((p) => p.command === CMD.ENABLEDEVICE)).toHaveLength(1);
  });
});
