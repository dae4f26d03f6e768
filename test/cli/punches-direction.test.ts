import { parse as parseCsv } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { directionResolver } from '../../src/punch/direction.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { startStack } from '../daemon/stack.js';
import { cliSandbox, runPunchgate } from '../helpers/cli.js';

type Stack = Awaited<ReturnType<typeof startStack>>;

/** What `punches --json` says of each punch, by code. */
interface Listed {
  biometricCode: string;
  terminal: string;
  punchState: number | null;
  stateName: string;
  direction: 'in' | 'out' | null;
  directionSetting: string;
}

/**
 * Direction end to end from a ZK pull terminal: the simulated terminal records states, the built
 * CLI polls it (`punchgate poll`, the daemon's own read), and `punches --json`, the listing and
 * the export show the state and the direction the terminal's setting gives; the journal's claim
 * hands delivery the terminal and state it resolves the same direction from.
 */
describe('a ZK pull terminal state through poll, punches and export', () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  it('state 1 (check-out) comes out `out`; every other state as its meaning, and as the terminal setting changes it', async () => {
    stack = await startStack({ terminals: 2 });
    const s = stack;
    // gate-1: the default (the state the person chose); gate-2: break-out is no direction there.
    const withGate2 = (extra: Record<string, unknown>) =>
      s.writeConfig(undefined, (c) => Object.assign((c.terminals as Record<string, unknown>[])[1]!, extra));
    withGate2({ directionStates: { 2: 'none' } });
    const states = [0, 1, 2, 3, 4, 5, 255];
    states.forEach((state, i) =>
      s.terminals[0]!.addPunch({ userId: String(1000 + i), logTime: `2026-11-23 08:0${i}:00`, state }),
    );
    s.terminals[1]!.addPunch({ userId: '2001', logTime: '2026-11-23 09:00:00', state: 1 });
    s.terminals[1]!.addPunch({ userId: '2002', logTime: '2026-11-23 09:01:00', state: 2 });
    Journal.open({ path: s.tmp.path('journal.db'), site: 'plant-t', mode: 'owner' }).close();
    const cli = (...args: string[]) => runPunchgate(['--config', s.configPath, ...args]);
    const poll = await cli('poll');
    expect(poll.status, poll.stderr).toBe(0);

    const listed = async () => {
      const r = await cli('punches', '--json');
      expect(r.status, r.stderr).toBe(0);
      const rows = r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Listed);
      return new Map(rows.map((p) => [p.biometricCode, p]));
    };
    let byCode = await listed();
    expect(byCode.size).toBe(9);
    // The one the issue names: a ZK pull terminal's state 1 is `out`.
    expect(byCode.get('1001')).toMatchObject({
      terminal: 'gate-1',
      punchState: 1,
      stateName: 'check-out',
      direction: 'out',
      directionSetting: 'device',
    });
    expect(
      states.map((_, i) => [byCode.get(String(1000 + i))!.stateName, byCode.get(String(1000 + i))!.direction]),
    ).toEqual([
      ['check-in', 'in'],
      ['check-out', 'out'],
      ['break-out', 'out'],
      ['break-in', 'in'],
      ['overtime-in', 'in'],
      ['overtime-out', 'out'],
      ['undefined', null],
    ]);
    expect([byCode.get('2001')!.direction, byCode.get('2002')!.direction]).toEqual(['out', null]);

    // The table a person reads: the direction and the state in words.
    const table = await cli('punches', '--terminal', 'gate-1', '--code', '1001,1006');
    expect(table.stdout.split('\n')[0]).toMatch(/LOG TIME +DIRECTION +STATE +ATTEMPTS/);
    expect(table.stdout).toMatch(/1001 +2026-11-23 08:01:00 +out \(check-out\) +pending/);
    expect(table.stdout).toMatch(/1006 +2026-11-23 08:06:00 +- \(undefined\) +pending/);

    // The export: the journal's columns as before, then the state in words and the direction.
    const exported = await cli('punches', 'export');
    expect(exported.status, exported.stderr).toBe(0);
    const [header, ...rows] = parseCsv(exported.stdout, { record_delimiter: '\r\n' }) as string[][];
    expect(header!.slice(-4)).toEqual(['attempts', 'lastMessage', 'stateName', 'direction']);
    const col = (name: string) => header!.indexOf(name);
    expect(
      rows
        .filter((r) => r[col('terminal')] === 'gate-2')
        .map((r) => [r[col('biometricCode')], r[col('punchState')], r[col('stateName')], r[col('direction')]])
        .sort(),
    ).toEqual([
      ['2001', '1', 'check-out', 'out'],
      ['2002', '2', 'break-out', ''],
    ]);

    // A changed setting applies to what is journalled (the journal keeps states, never directions).
    withGate2({ directionStates: undefined, direction: 'in' });
    byCode = await listed();
    expect([byCode.get('2001'), byCode.get('2002')].map((p) => [p!.direction, p!.directionSetting])).toEqual([
      ['in', 'in'],
      ['in', 'in'],
    ]);

    // What delivery gets from the journal's claim: terminal, device and state, from which the one
    // resolver gives the direction `punches` showed.
    const config = parseConfigText(readFileSync(s.configPath, 'utf8'), s.configPath, s.tmp.path('.'));
    const directionOf = directionResolver(config.terminals);
    const j = Journal.open({ path: s.tmp.path('journal.db'), site: 'plant-t', mode: 'shared' });
    try {
      const claimed = j.claim(100);
      expect(claimed).toHaveLength(9);
      const one = claimed.find((p) => p.biometricCode === '1001')!;
      expect(one).toMatchObject({ terminal: 'gate-1', device: 'SN-1', punchState: 1 });
      for (const p of claimed) expect(directionOf(p) ?? null).toBe(byCode.get(p.biometricCode)!.direction);
      j.release(claimed.map((p) => p.id));
    } finally {
      j.close();
    }
  });

  it('imports: a ZKTeco USB log keeps its state column (read by the named terminal setting), a CSV has none', async () => {
    const box = cliSandbox({
      terminals: [{ name: 'gate-1', kind: 'zk', host: '10.0.0.1', directionStates: { 4: 'out' } }],
    });
    try {
      // pin, time, verify type, state, work code... as the terminal writes its USB export.
      const states = [0, 1, 4, 255];
      writeFileSync(
        box.tmp.path('GATE_attlog.dat'),
        states.map((st, i) => `${String(3000 + i).padStart(9)}\t2026-11-24 08:0${i}:00\t1\t${st}\t0\t0`).join('\r\n') +
          '\r\n',
      );
      writeFileSync(box.tmp.path('p.csv'), 'biometriccode,logDate\n4000,2026-11-24 09:00:00\n');
      expect((await box.cli('import', '--terminal', 'gate-1', box.tmp.path('GATE_attlog.dat'))).status).toBe(0);
      expect((await box.cli('import', box.tmp.path('p.csv'))).status).toBe(0);
      const r = await box.cli('punches', '--json');
      expect(r.status, r.stderr).toBe(0);
      const rows = r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Listed)
        .map((p) => [p.terminal, p.biometricCode, p.punchState, p.stateName, p.direction])
        .sort();
      expect(rows).toEqual([
        ['gate-1', '3000', 0, 'check-in', 'in'],
        ['gate-1', '3001', 1, 'check-out', 'out'],
        ['gate-1', '3002', 4, 'overtime-in', 'out'], // this terminal's directionStates
        ['gate-1', '3003', 255, 'undefined', null],
        ['import', '4000', null, '', null],
      ]);
    } finally {
      box.tmp.cleanup();
    }
  });
});
