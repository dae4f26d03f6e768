/**
 * Benchmark 4b (issue 3): records each client delivers to the journal under the simulator's
 * fault modes where node-zklib loses records (zk-protocol.md A1, B1.2, B1.3): unpaced
 * 1008-byte CMD_DATA packets (coalesced on the wire), and a chunk's trailing ACK_OK sent in
 * its own write. Ours must journal every record (zero loss); node-zklib's count is printed
 * next to it, with the punches it journalled that are not on the terminal at all (records
 * decoded from a misaligned buffer). A paced run without faults is the control.
 */
import type { TerminalFaults } from '../src/sim/terminal/index.js';
import { scaled } from './lib/scale.js';
import { scratchDir } from './lib/setup.js';
import { fmt, log, type BenchRow } from './lib/table.js';
import { CLIENT_LABEL, describeRun, downloadOnce, startTerminalChild, type DownloadRun } from './lib/zk.js';

const CLEAN: Partial<TerminalFaults> = { pacingMs: 3, splitPackets: null, separateTrailingAck: false };

const MODES: Array<{ name: string; faults: Partial<TerminalFaults> }> = [
  { name: 'control: paced 3 ms, no fault', faults: CLEAN },
  { name: 'split 1008-byte packets, unpaced', faults: { ...CLEAN, splitPackets: 1008, pacingMs: 0 } },
  { name: 'separate trailing ACK, paced 3 ms', faults: { ...CLEAN, separateTrailingAck: true } },
  {
    name: 'split 1008 + separate ACK, unpaced',
    faults: { ...CLEAN, splitPackets: 1008, pacingMs: 0, separateTrailingAck: true },
  },
];

export async function benchZkFaults(): Promise<BenchRow[]> {
  const total = scaled(100_000, { step: 1000 });
  log(
    `zk-faults: ${fmt(total)} punches, TCP; each client in a fresh process per mode (node-zklib: 10 s packet timeout)`,
  );
  const terminal = await startTerminalChild([{ users: 300, punches: total, faults: CLEAN }]);
  const scratch = scratchDir('zk-faults');
  const rows: BenchRow[] = [];
  try {
    const target = { port: terminal.ready.ports[0]!, users: 300, punches: total };
    let run = 0;
    for (const mode of MODES) {
      await terminal.call('setFaults', { index: 0, faults: mode.faults });
      const got: Record<string, DownloadRun> = {};
      for (const client of ['zklib', 'ours'] as const) {
        got[client] = await downloadOnce(client, target, scratch.dir, ++run);
        log(`  ${mode.name}, ${CLIENT_LABEL[client]}: ${describeRun(got[client])}`);
      }
      const ours = got.ours!;
      const theirs = got.zklib!;
      rows.push({
        bench: 'zk-faults',
        metric: `right punches journalled: ${mode.name}`,
        unit: 'records',
        ours: ours.journalled - ours.bogus,
        baseline: theirs.journalled - theirs.bogus,
        target: `ours = ${fmt(total)} (zero loss)`,
        pass: ours.journalled === total && ours.bogus === 0 && !ours.crashed,
        note:
          `node-zklib: ${theirs.crashed ?? theirs.error ?? 'no error reported'}` +
          (theirs.bogus ? `; it also journalled ${fmt(theirs.bogus)} punches that are NOT on the terminal` : '') +
          (theirs.leftFiles.length ? ` (wrote ${theirs.leftFiles.join(', ')})` : '') +
          (ours.error ? `; ours: ${ours.error}` : ''),
      });
    }
  } finally {
    await terminal.stop();
    scratch.remove();
  }
  return rows;
}
