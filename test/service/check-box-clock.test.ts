import { afterEach, describe, expect, it } from 'vitest';
import { formatReport, runChecks } from '../../src/check/index.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { wallClockAt } from '../../src/punch.js';
import { COMM_KEY, startSite } from './helpers.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A new-user trial: the box's clock an hour ahead, its two ZK terminals right. check warned of
 * each terminal ("a difference of whole hours usually means a time zone mismatch: set
 * terminals[0].timezone ... or correct the terminal's clock") and never of the box. Both clocks
 * read off by the same amount name the box's clock first, in the status's words.
 */
describe("check names the box's clock when every terminal clock is off it by the same amount", () => {
  it('one box clock line for two terminals an hour behind; none for one in step', async () => {
    const behind = () => wallClockAt(Date.now() - 3600_000);
    const s = await startSite({ terminal: { clock: behind } });
    cleanups.push(() => s.stop());
    const other = await startTerminalSim({ commKey: COMM_KEY, serialNumber: 'CHK0000002', clock: behind });
    cleanups.push(() => other.stop());
    const two = (port: number) =>
      s.writeConfig((c) => {
        const first = (c.terminals as Record<string, unknown>[])[0]!;
        c.terminals = [first, { ...first, name: 'gate-2', port }];
      });

    two(other.port);
    const lines = formatReport(await runChecks({ configPath: s.configPath, env: {} })).split('\n');
    expect(lines.find((l) => l.startsWith('WARN box clock:'))).toMatch(
      /^WARN box clock: the box's clock is likely 1 h ahead: every terminal whose clock punchgate knows \(gate-1, gate-2\) is 1 h behind it by the same amount \(-360\d s\)\. .* — check the box's clock first: timedatectl status/,
    );

    const inStep = await startTerminalSim({ commKey: COMM_KEY, serialNumber: 'CHK0000003' });
    cleanups.push(() => inStep.stop());
    two(inStep.port);
    const mixed = formatReport(await runChecks({ configPath: s.configPath, env: {} }));
    expect(mixed).not.toContain('WARN box clock');
  }, 60_000);
});
