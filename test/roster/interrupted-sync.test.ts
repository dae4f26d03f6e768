/**
 * A user command interrupted by the admin (Ctrl-C, or systemd/docker stopping it with SIGTERM)
 * while it writes a ZK terminal. The terminal is disabled during the writes (it shows "working"
 * and takes no punches); found by a trial: the command died at once and left the terminal disabled
 * until someone ran it again. Now the write in progress ends, the rest is not attempted, the
 * terminal is enabled again and the report says what it holds (exit 75: run it again to finish).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Journal } from '../../src/journal/journal.js';
import { startTerminalSim, type TerminalSim } from '../../src/sim/terminal/index.js';
import { ZkClient } from '../../src/sources/zk/client/index.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { useUserSync } from './helpers.js';

let sim: TerminalSim | null = null;
let tmp: ReturnType<typeof tempDir> | null = null;
afterEach(async () => {
  await sim?.stop();
  sim = null;
  tmp?.cleanup();
  tmp = null;
});

describe('sync-users interrupted while it writes a ZK terminal', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s: the write in progress ends, the rest is not attempted, the terminal is enabled again',
    async (signal) => {
      tmp = tempDir('punchgate-interrupt-');
      // 40 ms after every packet the terminal writes: 30 additions take over a second.
      sim = await startTerminalSim({ faults: { pacingMs: 40 } });
      writeFileSync(
        tmp.path('punchgate.yaml'),
        stringify({
          site: 'plant-a',
          journal: { path: 'journal.db' },
          hrms: { baseUrl: 'http://127.0.0.1:9' },
          terminals: [{ name: 'gate', kind: 'zk', host: '127.0.0.1', port: sim.port, timeoutMs: 5000 }],
        }),
      );
      Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
      const rows = Array.from({ length: 30 }, (_, i) => `${1001 + i},Person ${i + 1},`);
      writeFileSync(tmp.path('roster.csv'), ['code,name,card', ...rows].join('\n') + '\n');

      const child = spawn(
        process.execPath,
        [
          join(process.cwd(), 'dist/punchgate.js'),
          '-c',
          tmp.path('punchgate.yaml'),
          'terminals',
          'sync-users',
          '--roster',
          'roster.csv',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], cwd: tmp.dir },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (err += b.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

      await waitFor(() => sim!.writeCount() >= 3, 10_000, 'three users written');
      expect(sim.deviceEnabled()).toBe(false);
      child.kill(signal);
      const code = await exited;

      expect(sim.deviceEnabled()).toBe(true);
      expect(code).toBe(75);
      const held = sim.users().length;
      expect(held).toBeGreaterThanOrEqual(3);
      expect(held).toBeLessThan(30);
      expect(err).toMatch(/interrupted: .*the terminals are enabled again/);
      expect(out).toMatch(/NOT-ATTEMPTED: not attempted: the command was interrupted/);
      // What the report calls applied is what the terminal holds.
      expect(out.match(/: applied$/gm)?.length).toBe(held);
    },
    15_000,
  );
});

describe('a ZK terminal left disabled by an earlier run that broke off', () => {
  const env = useUserSync();

  it('a run with nothing left to change enables it again; a dry run changes nothing', async () => {
    const { gate } = await env.start({ gate: { users: [{ uid: 1, userId: '1', name: 'Ann' }] } });
    // An earlier run killed (kill -9, the box's power) after its last write, before ENABLEDEVICE.
    const zk = new ZkClient({ host: '127.0.0.1', port: gate.port, transport: 'tcp', timeoutMs: 5000 });
    await zk.connect();
    await zk.disableDevice();
    await zk.disconnect();
    expect(gate.deviceEnabled()).toBe(false);
    const roster = env.writeRoster(['code,name', '1,Ann']);

    const dry = await env.sync({ roster, dryRun: true });
    expect(dry.code).toBe(0);
    expect(gate.deviceEnabled()).toBe(false);

    const run = await env.sync({ roster });
    expect(run.code).toBe(0);
    expect(run.out).toContain('0 added, 0 updated, 0 removed; 1 unchanged');
    expect(gate.deviceEnabled()).toBe(true);
    expect(gate.writeCount()).toBe(0);
  });
});
