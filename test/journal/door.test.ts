import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { deviceIdentity, serialProblem, unpadded, userText } from '../../src/punch.js';
import { createLogger } from '../../src/util/logger.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * The journal's door: whatever source hands it punches, a record whose biometric code or terminal
 * name breaks the text rule is refused there (counted per terminal, logged, never stored), and a
 * serial number that breaks it is kept as a bounded stand-in, the same each time.
 */
const BAD_CODES = [
  '10\u202e01',
  '10\u001b[31m',
  '10\u000001',
  '10\n01',
  '10 01',
  '10\u200b01',
  '10\ufffd01',
  'x'.repeat(10_000),
  '',
  '\ufeff1001',
  '1001\u00a0',
  '10\ud83d01',
  '10\u008501',
];

describe("the journal's door", () => {
  let tmp: ReturnType<typeof tempDir>;
  let journal: Journal;
  let logs: string;
  const clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));

  beforeEach(() => {
    tmp = tempDir();
    logs = '';
    journal = Journal.open({
      path: tmp.path('j.db'),
      site: 's',
      mode: 'owner',
      clock,
      logger: createLogger({ destination: { write: (s: string) => void (logs += s) } }),
    });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  it('refuses every bad code, keeps the good ones, says which by index, counts them per terminal and logs them escaped', () => {
    const punches = [
      { terminal: 'gate-1', biometricCode: '1001', logTime: '2026-11-22 08:00:00' },
      ...BAD_CODES.map((c, i) => ({
        terminal: 'gate-1',
        biometricCode: c,
        logTime: `2026-11-22 08:01:${String(i).padStart(2, '0')}`,
      })),
      { terminal: 'gate\u001b[2J', biometricCode: '1002', logTime: '2026-11-22 08:02:00' },
      { terminal: 'gate-1', biometricCode: 'Ünïcødé-名前', logTime: '2026-11-22 08:03:00' },
    ];
    const r = journal.ingest(punches);
    expect(r).toMatchObject({ added: 2, duplicates: 0, quarantined: 0, refused: BAD_CODES.length + 1 });
    expect(r.refusals!.map((x) => x.index)).toEqual(
      [...BAD_CODES.keys()].map((i) => i + 1).concat(BAD_CODES.length + 1),
    );
    expect(r.refusals![0]!.reason).toBe('biometric code has a bidirectional control (U+202E)');
    expect(r.refusals!.at(-1)!.reason).toMatch(/^terminal name has a control character/);
    expect(
      journal.queries
        .list()
        .map((p) => p.biometricCode)
        .sort(),
    ).toEqual(['1001', 'Ünïcødé-名前']);
    const kept = journal.refusedRecords.list(0);
    expect(kept.map((k) => [k.terminal, k.count])).toEqual([
      ['gate-1', BAD_CODES.length],
      ['gate\\x1b[2J', 1],
    ]);
    expect(kept[0]!.lastCode.length).toBeLessThan(80);
    expect(logs).toContain('record refused, not journalled: biometric code has a bidirectional control (U+202E)');
    expect(logs).toMatch(/more records refused in the same write/);
    expect(logs).not.toContain('\u202e');
    expect(logs).not.toContain('x'.repeat(100));
  });

  it('keeps a serial number that breaks the rule as a bounded stand-in, the same each time, and finds punches by it', () => {
    const long = `DS-K1T${'Q'.repeat(5000)}`;
    const evil = 'SN\u202e1\u001b[0m';
    for (const serial of [long, evil]) {
      const kept = deviceIdentity(serial);
      expect(serialProblem(kept)).toBeUndefined();
      expect(kept.length).toBeLessThanOrEqual(64);
      expect(deviceIdentity(kept)).toBe(kept);
      const p = { terminal: 'reception', device: serial, biometricCode: '7', logTime: '2026-11-22 08:00:00' };
      expect(journal.ingest([p])).toMatchObject({ added: 1 });
      expect(journal.ingest([p])).toMatchObject({ added: 0, duplicates: 1 });
      expect(journal.queries.undeliveredCount('reception', serial)).toBe(1);
      expect(journal.queries.deliveredAmong('reception', serial, [p])).toBe(0);
      journal.terminals.update('reception', { serial });
      expect(journal.terminals.get('reception')!.serial).toBe(kept);
    }
    const devices = journal.queries.list().map((p) => p.device);
    expect(devices).toEqual([deviceIdentity(long), deviceIdentity(evil)]);
    expect(devices[0]).toMatch(/^DS-K1TQ{18}~[0-9a-f]{16}$/);
    expect(logs.match(/reports a serial number that cannot be kept as it is/g)).toHaveLength(2);
    // An ordinary serial is kept as it is.
    expect(deviceIdentity('CQZ7232160001')).toBe('CQZ7232160001');
    journal.sourceState.set({ terminal: 'reception', key: `events:${long}`, value: '1' });
    expect(journal.sourceState.get('reception', `events:${long}`)).toBe('1');
  });

  it('takes off ASCII padding only; keeps user names readable and bounded', () => {
    expect(unpadded('  1001 ')).toBe('1001');
    expect(unpadded('1001\u00a0')).toBe('1001\u00a0');
    expect(unpadded('\ufeff1001')).toBe('\ufeff1001');
    expect(userText('Ana María')).toBe('Ana María');
    expect(userText('Eve\u202etxt.exe')).toBe('Eve\\u202etxt.exe');
    expect(userText('N'.repeat(500)).length).toBeLessThan(100);
  });
});
