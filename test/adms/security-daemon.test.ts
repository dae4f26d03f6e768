import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import {
  startPushTerminalSim,
  type PushSimRecord,
  type PushTerminalSim,
  type PushTerminalSimOptions,
} from '../../src/sim/push-terminal/index.js';
import { spawnDaemon } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';

const key = (r: PushSimRecord) => `${r.pin}@${r.logTime}`;

/**
 * Every firmware variant the receiver knows, each a simulated terminal, through `punchgate run`
 * to the simulated HRMS: each pass arrives once with the terminal's wall-clock time, and nothing
 * else does (no door event, refusal, unset-clock row or malformed line).
 */
describe('Security PUSH and the field variants through punchgate run', () => {
  it('delivers each pass once with its wall-clock time, and nothing else', async () => {
    const terminals = [
      { name: 'gate', serial: 'SECPUSH0001' },
      { name: 'gate-noreg', serial: 'SECPUSH0002' },
      { name: 'f22', serial: 'CQZ7233461467' },
      { name: 'mb10', serial: 'MB10VL00001' },
    ];
    const stack = await startPushStack({ terminals });
    const common = {
      server: stack.url,
      punches: 40,
      timeMode: 'sequence' as const,
      batchSize: 16,
      delayMs: 100,
      errorDelayMs: 100,
    };
    const specs: (Partial<PushTerminalSimOptions> & { serial: string })[] = [
      {
        serial: 'SECPUSH0001',
        protocol: 'security',
        variant: { clockUnsetRows: 2 },
        faults: { nonPunchRate: 0.4, malformedRate: 0.3, seed: 3 },
      },
      { serial: 'SECPUSH0002', protocol: 'security', variant: { deviceTypeInHandshake: false }, faults: { seed: 4 } },
      {
        serial: 'CQZ7233461467',
        pushVersion: '3.0.1',
        variant: { stamp: '9999', attlogFields: 11, noContentType: true, connectionClose: true },
        faults: { seed: 5 },
      },
      { serial: 'MB10VL00001', variant: { attlogFields: 8, multilineResults: true }, faults: { seed: 6 } },
    ];
    // A command whose result comes back spread over lines must be settled, not sent again.
    Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-p', mode: 'owner' }).close();
    expect((await runPunchgate(['--config', stack.configPath, 'terminals', 'command', 'mb10', 'INFO'])).status).toBe(0);
    const d = spawnDaemon(stack.configPath);
    // Users of distinct codes on each terminal: a pass is known by code and time, at the HRMS too.
    const usersOf = (k: number) =>
      Array.from({ length: 12 }, (_, i) => ({
        pin: String((k + 1) * 1000 + i),
        name: `U${k}-${i}`,
        privilege: 0,
        card: '',
      }));
    const sims: PushTerminalSim[] = specs.map((s, k) => startPushTerminalSim({ ...common, users: usersOf(k), ...s }));
    try {
      for (const sim of sims) sim.addPunches(10);
      await waitFor(() => sims.every((s) => s.backlog() === 0), 60_000, 'every terminal uploaded');
      const passes = sims.flatMap((s) => s.passes().map(key)).sort();
      await waitFor(() => stack.hrms.attendance().length >= passes.length, 60_000, 'every pass delivered');
      await new Promise((r) => setTimeout(r, 1000));
      const delivered = stack.hrms.attendance().map((p) => `${p.biometriccode}@${p.logDate}`);
      expect(delivered.sort()).toEqual(passes);
      // The variants were really exercised.
      const [gate, noreg, f22, mb10] = sims as [PushTerminalSim, PushTerminalSim, PushTerminalSim, PushTerminalSim];
      expect(gate.records().filter((r) => r.kind === 'other').length).toBeGreaterThan(0);
      expect(gate.records().filter((r) => r.kind === 'clock-unset')).toHaveLength(2);
      expect(gate.stats().malformedSent).toBeGreaterThan(0);
      expect(gate.stats().lastTableAnswer).toBe('user=12');
      expect(noreg.stats().registrations).toBe(1);
      expect(f22.stats().connections).toBeGreaterThan(3);
      expect(mb10.commands()).toEqual([expect.objectContaining({ command: 'INFO', returnCode: 0 })]);
      for (const s of sims) expect(s.stats().resentAfterOk).toBe(0);
      await waitFor(
        () => readFileSync(stack.tmp.path('status.txt'), 'utf8').includes('kept raw in the journal'),
        10_000,
        'status log names the kept lines',
      );

      const status = JSON.parse((await runPunchgate(['--config', stack.configPath, 'status', '--json'])).stdout) as {
        terminals: { name: string; push: { protocol: string; device?: { model: string }; kept: { held: number }[] } }[];
        alerts: string[];
      };
      const byName = new Map(status.terminals.map((t) => [t.name, t.push]));
      expect(byName.get('gate')).toMatchObject({ protocol: 'security', device: { model: 'SpeedFace-V5L-sim' } });
      expect(byName.get('f22')).toMatchObject({ protocol: 'attendance' });
      expect(byName.get('gate')!.kept.reduce((n, k) => n + k.held, 0)).toBeGreaterThan(0);
      expect(status.alerts.some((a) => a.startsWith('terminal gate: ') && a.includes('terminals reparse gate'))).toBe(
        true,
      );
      const listing = await runPunchgate(['--config', stack.configPath, 'terminals']);
      expect(listing.stdout).toContain('push (Security PUSH)');
      expect(listing.stdout).toMatch(/device: SpeedFace-V5L-sim, push 3\.1\.2, capacities .*MaxUserCount 10000/);
      // Settled once: the spread-out result did not leave the command to be sent again.
      const commands = (await runPunchgate(['--config', stack.configPath, 'terminals', 'commands', 'mb10'])).stdout;
      expect(commands.split('\n').filter((l) => l.includes('INFO'))).toEqual([
        expect.stringMatching(/ done .* 0 {2}INFO$/),
      ]);
    } finally {
      await Promise.all(sims.map((s) => s.stop()));
      d.child.kill('SIGTERM');
      const exit = await d.exited;
      await stack.stop();
      expect(exit, d.output().slice(-3000)).toEqual({ code: 0, signal: null });
    }
  }, 180_000);
});
