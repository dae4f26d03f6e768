import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { wallClockAt } from '../../src/punch.js';
import { spawnDaemon, startStack } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { killTraced, tracedMainPid } from '../helpers/wal-syncs.js';

/**
 * strace of `punchgate run`: every write of the journal's write-ahead log, every sync of it, and
 * every write to a socket, bytes in hex (a ZK packet is told by its header and command).
 */
const tracer = (file: string) => [
  'strace',
  '-f',
  '-y',
  '-qq',
  '-xx',
  '-s',
  '16',
  '-e',
  'trace=execve,pwrite64,fsync,fdatasync,write,writev,sendto',
  '-o',
  file,
];

/** A ZK TCP packet of DISABLEDEVICE (1003): header 50 50 82 7d, a u32 length, the u16 command. */
const DISABLE_PACKET = /\\x50\\x82\\x7d(?:\\x[0-9a-f]{2}){4}\\xeb\\x03/;
/** A path's end as strace -xx prints it (every byte in hex), then the fd's closing `>`. */
const hexPath = (end: string) =>
  [...Buffer.from(end)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('') + '>';
const WAL = hexPath('journal.db-wal');

/**
 * The clear of a ZK log disables the terminal (nobody can punch) and enables it again after; a
 * mark in the journal says so in between, so that a poll after a power cut enables it. That mark
 * must be on the disk before the terminal is disabled: a power cut with the mark still in the
 * page cache left the terminal disabled, unnoticed, until someone restarted it. Read from strace:
 * the last write of the WAL before the DISABLEDEVICE packet (the mark's commit) is followed by a
 * sync of the WAL before that packet.
 */
describe('ZK clear: the left-disabled mark is on the disk before the terminal is disabled', () => {
  it('a sync of the WAL comes between the mark written and DISABLEDEVICE sent', async () => {
    const stack = await startStack({ terminals: 1, zk: { realtime: false, clearAfterDays: 1 } });
    const sim = stack.terminals[0]!;
    const trace = stack.tmp.path('strace.txt');
    let d: ReturnType<typeof spawnDaemon> | undefined;
    let nodePid = 0;
    try {
      // Three days old: older than clearAfterDays once delivered, never judged implausible. A
      // first run journals and delivers it; the log, unchanged, is not read again within the hour,
      // so a second run (under strace) reads it at its first poll and clears it.
      sim.addPunch({ userId: '1001', logTime: wallClockAt(Date.now() - 3 * 86_400_000) });
      const first = spawnDaemon(stack.configPath);
      await waitFor(() => stack.hrms.received().length >= 1, 60_000, 'the punch delivered');
      first.child.kill('SIGTERM');
      expect(await first.exited, first.output().slice(-2000)).toMatchObject({ code: 0 });
      expect(sim.clearCount()).toBe(0);
      d = spawnDaemon(stack.configPath, [], {}, tracer(trace));
      await waitFor(() => sim.clearCount() >= 1, 60_000, 'the log cleared');
      // Enabled again after the clear: a moment later than the clear itself (under load, long
      // enough for a look right after the clear to find the terminal still disabled).
      await waitFor(() => sim.deviceEnabled(), 60_000, 'the terminal enabled again');
      nodePid = tracedMainPid(trace);
      const lines = readFileSync(trace, 'utf8').split('\n');
      const disable = lines.findIndex((l) => DISABLE_PACKET.test(l));
      expect(disable, 'DISABLEDEVICE in the trace').toBeGreaterThan(0);
      // strace pads a pid shorter than five digits with a blank ("8052  pwrite64("): \s+, not one blank.
      const walWrite = lines.findLastIndex((l, i) => i < disable && /^\d+\s+pwrite64\(/.test(l) && l.includes(WAL));
      expect(walWrite, `the mark written to the WAL:\n${lines.slice(0, disable + 1).join('\n')}`).toBeGreaterThan(0);
      const between = lines.slice(walWrite + 1, disable);
      expect(
        between.some((l) => /^\d+\s+f(?:data)?sync\(/.test(l) && l.includes(WAL)),
        lines.slice(Math.max(0, walWrite - 3), disable + 1).join('\n'),
      ).toBe(true);
    } finally {
      if (d) await killTraced(d, nodePid);
      await stack.stop();
    }
  }, 120_000);
});
