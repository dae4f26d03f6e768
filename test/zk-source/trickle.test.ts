import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { cliSandbox } from '../helpers/cli.js';

/**
 * A terminal that trickles its log one byte per packet answers every exchange in time, so no
 * per-exchange timeout ever trips. Its poll is cut off at the poll deadline (pollDeadlineMs +
 * pollDeadlinePerRecordMs per announced record), and the status shows that its polls reach it
 * but do not finish. Real processes: the `punchgate poll` and `status` CLIs against a simulator
 * on a real socket.
 */
describe('a trickling terminal', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('does not hold a poll beyond its deadline and shows as an alert until a poll finishes', async () => {
    // 1000 records of 40 bytes, one byte per packet every 5 ms: more than 200 s to send the log.
    const sim = await startTerminalSim({
      serialNumber: 'TRICKLE-1',
      generate: { users: 5, punches: 1000, startTime: '2026-01-05 08:00:00', seed: 11 },
      faults: { splitPackets: 1, pacingMs: 5 },
    });
    cleanups.push(() => sim.stop());
    const terminal = {
      name: 'gate-1',
      kind: 'zk',
      host: '127.0.0.1',
      port: sim.port,
      transport: 'tcp',
      timeoutMs: 1000,
      pollDeadlineMs: 1500,
      pollDeadlinePerRecordMs: 1,
    };
    const box = cliSandbox({ terminals: [terminal] });
    cleanups.push(() => box.tmp.cleanup());

    const poll = await box.cli('poll');
    expect(poll.status, poll.stdout + poll.stderr).toBe(75);
    expect(poll.stdout).toMatch(
      /^gate-1: FAILED: poll did not finish within its deadline \(2\.5 s for 1000 records: pollDeadlineMs \+ pollDeadlinePerRecordMs per record\); (\d+) of 40004 bytes of its log had arrived: the terminal answers too slowly — raise terminals\[0\]\.pollDeadlineMs \(or pollDeadlinePerRecordMs\), or let punchgate clear its log once delivered \(terminals\[0\]\.clearAfterDays\); nothing is lost, the log is read again\n$/,
    );
    const arrived = Number(/; (\d+) of 40004 bytes/.exec(poll.stdout)![1]);
    expect(arrived).toBeLessThan(40004);

    const status = JSON.parse((await box.cli('status', '--json')).stdout) as {
      alerts: string[];
      terminals: { online: boolean }[];
    };
    expect(status.terminals[0]!.online).toBe(true);
    expect(status.alerts).toContainEqual(
      expect.stringMatching(
        /^terminal gate-1: polls reach it but do not finish \(last complete poll: none yet\): poll did not finish within its deadline/,
      ),
    );

    // The terminal recovers: the next poll finishes and the alert is gone.
    sim.setFaults({ splitPackets: null, pacingMs: 0 });
    const ok = await box.cli('poll');
    expect(ok.status, ok.stdout).toBe(0);
    const after = JSON.parse((await box.cli('status', '--json')).stdout) as { alerts: string[] };
    expect(after.alerts.filter((a) => a.includes('do not finish'))).toEqual([]);
  });
});
