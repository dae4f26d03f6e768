import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DataFileError, loadDataFiles } from '../../src/sim/terminal/data-file.js';
import { generatePunches, generateUsers } from '../../src/sim/terminal/generate.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { addSeconds, TerminalClock } from '../../src/sim/terminal/terminal-clock.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('punchgate-simdata-');
afterAll(() => dir.cleanup());
const write = (name: string, text: string) => {
  const p = dir.path(name);
  fs.writeFileSync(p, text);
  return p;
};

describe('data files', () => {
  it('creates one user per punch user id when the files define no users', () => {
    const f = write(
      'p.csv',
      '\uFEFFuserId,logTime,verifyType,state\r\n7,2024-01-01 08:00:00,2,0\r\n8,2024-01-01 08:01:00\r\n7,2024-01-01 17:00:00,1,1\r\n',
    );
    const d = loadDataFiles([f]);
    expect(d.problems).toEqual([]);
    expect(d.users.map((u) => [u.uid, u.userId, u.name])).toEqual([
      [1, '7', 'User 7'],
      [2, '8', 'User 8'],
    ]);
    expect(d.punches).toEqual([
      { userId: '7', logTime: '2024-01-01 08:00:00', verifyType: 2, state: 0 },
      { userId: '8', logTime: '2024-01-01 08:01:00', verifyType: 1, state: 0 },
      { userId: '7', logTime: '2024-01-01 17:00:00', verifyType: 1, state: 1 },
    ]);
  });

  it('reports each bad JSON record by index and keeps the good ones', () => {
    const f = write(
      'd.json',
      JSON.stringify({
        users: [
          { uid: 1, userId: 'A1', name: 'Ann' },
          { uid: 1, userId: 'A2', name: 'Dup uid' },
          { userId: 'A1', name: 'Dup id' },
          { userId: 'A3', name: 'x'.repeat(25) },
          { userId: 'A4', privilege: 'boss' },
          'nonsense',
        ],
        punches: [
          { userId: 'A1', logTime: '2024-02-30 08:00:00' },
          { userId: 'A1', logTime: '1999-12-31 23:59:59' },
          { logTime: '2024-02-01 08:00:00' },
        ],
      }),
    );
    const d = loadDataFiles([f]);
    expect(d.users.map((u) => u.userId)).toEqual(['A1']);
    expect(d.punches).toEqual([]);
    expect(d.problems.map((p) => p.replace(`${f}: `, ''))).toEqual([
      'users[1]: uid 1 used twice',
      'users[2]: user id A1 used twice',
      expect.stringMatching(/^users\[3\]: user name must be at most 24 bytes/),
      'users[4]: privilege must be a whole number: "boss"',
      'users[5]: userId missing',
      expect.stringMatching(/^punches\[0\]: not a log time/),
      expect.stringMatching(/^punches\[1\]: ZK terminals store years 2000-2099/),
      'punches[2]: userId missing',
    ]);
  });

  it('refuses files that are not data at all', () => {
    expect(() => loadDataFiles([write('bad.json', '{"users": ')])).toThrow(DataFileError);
    expect(() => loadDataFiles([write('arr.json', '[1,2]')])).toThrow(/expected an object/);
    expect(() => loadDataFiles([write('nohdr.csv', 'name,logTime\n')])).toThrow(/userId column/);
  });

  it('reads quoted CSV fields and # comments, and reports bad lines by number', () => {
    const f = write(
      'u.csv',
      '# staff\nuserId,name,privilege\n1,"Doe, ""Jo""",14\n"2,x\n3\u001b[31m,Esc\n4,Four,1,extra\n5\n',
    );
    const d = loadDataFiles([f]);
    expect(d.users.map((u) => [u.userId, u.name, u.privilege])).toEqual([
      ['1', 'Doe, "Jo"', 14],
      ['5', '', 0],
    ]);
    expect(d.problems.map((p) => p.replace(`${f}:`, ''))).toEqual([
      '4: a quoted cell (cell 1) is never closed',
      '6: 4 fields, the header has 3',
      '5: userId: biometric code has a control character (U+001B)',
    ]);
  });
});

describe('generated data and the clock', () => {
  it('is deterministic for a seed and avoids existing user ids', () => {
    const existing = [{ uid: 9, userId: '2', name: 'Two' }];
    const a = generateUsers(4, existing, 5);
    expect(a.map((u) => [u.uid, u.userId])).toEqual([
      [10, '1'],
      [11, '3'],
      [12, '4'],
      [13, '5'],
    ]);
    expect(generateUsers(4, existing, 5)).toEqual(a);
    const p1 = generatePunches(200, a, { seed: 3, startTime: '2024-12-31 23:00:00' });
    expect(generatePunches(200, a, { seed: 3, startTime: '2024-12-31 23:00:00' })).toEqual(p1);
    expect(p1[0]!.logTime).toBe('2024-12-31 23:00:00');
    expect(p1.map((p) => p.logTime)).toEqual([...p1.map((p) => p.logTime)].sort());
    expect(() => generatePunches(1, [])).toThrow(RangeError);
  });

  it('does wall-clock arithmetic without zones and runs from a set point', () => {
    expect(addSeconds('2024-02-28 23:59:59', 86401)).toBe('2024-03-01 00:00:00');
    let now = 1_000_000;
    const c = new TerminalClock('2025-03-30 01:59:59', () => now);
    now += 1500;
    expect(c.read()).toBe('2025-03-30 02:00:00');
    c.set('2030-06-01 12:00:00');
    now += 61_000;
    expect(c.read()).toBe('2030-06-01 12:01:01');
    expect(new TerminalClock(() => '2001-01-01 00:00:00').read()).toBe('2001-01-01 00:00:00');
    expect(() => new TerminalClock('tomorrow')).toThrow(RangeError);
  });

  it('rejects punches the terminal could not store', async () => {
    const sim = await startTerminalSim({ udp: false });
    try {
      expect(() => sim.addPunch({ userId: '', logTime: '2024-01-01 00:00:00' })).toThrow(RangeError);
      expect(() => sim.addPunch({ userId: '1', logTime: '2100-01-01 00:00:00' })).toThrow(RangeError);
      expect(() => sim.addPunch({ userId: '1', logTime: '2024-01-01 00:00:00', state: 300 })).toThrow(RangeError);
      expect(() => sim.setFaults({ pacingMs: -1 })).toThrow(RangeError);
      expect(sim.punches()).toEqual([]);
    } finally {
      await sim.stop();
    }
  });
});
