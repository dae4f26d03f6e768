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

  it('takes off ASCII padding only; keeps user names as the terminal holds them, bounded', () => {
    expect(unpadded('  1001 ')).toBe('1001');
    expect(unpadded('1001\u00a0')).toBe('1001\u00a0');
    expect(unpadded('\ufeff1001')).toBe('\ufeff1001');
    expect(userText('Ana María')).toBe('Ana María');
    // Kept as they are (what shows them escapes them): an escape kept as data is another name.
    expect(userText('Eve\u202etxt.exe')).toBe('Eve\u202etxt.exe');
    expect(userText('\u0641\u0627\u0637\u0645\u0647\u200c\u0632\u0647\u0631\u0627')).toContain('\u200c');
    expect(userText('N'.repeat(500))).toBe('N'.repeat(64));
    expect(userText('\u{1F469}'.repeat(70))).toBe('\u{1F469}'.repeat(64));
  });

  /**
   * Characters that make a code look like another (or like nothing), by Unicode category and
   * property: each variant named by what the rule must say. `1011` + U+FE0F looks exactly like `1011`.
   */
  const LOOKALIKES: ReadonlyArray<[string, string]> = [
    ['1011\ufe0f', 'a variation selector (U+FE0F)'],
    ['10\ufe0e11', 'a variation selector (U+FE0E)'],
    ['1011\u{e0100}', 'a variation selector (U+E0100)'],
    ['1011\u180b', 'a variation selector (U+180B)'],
    ['1011\u0301', 'a combining mark (U+0301)'],
    ['1011\u20dd', 'a combining mark (U+20DD)'],
    ['1011\u0903', 'a combining mark (U+0903)'],
    ['\u03001011', 'a combining mark (U+0300)'],
    ['1011\u{e0031}', 'an invisible formatting character (U+E0031)'],
    ['1011\u034f', 'an invisible formatting character (U+034F)'],
    ['1011\u3164', 'an invisible formatting character (U+3164)'],
    ['1011\u115f', 'an invisible formatting character (U+115F)'],
    ['10\u00ad11', 'an invisible formatting character (U+00AD)'],
    ['10\u206011', 'an invisible formatting character (U+2060)'],
    ['10\u061c11', 'a bidirectional control (U+061C)'],
    ['1011\ue000', 'a private-use character (U+E000)'],
    ['1011\u{f0000}', 'a private-use character (U+F0000)'],
    ['1011\ufdd0', 'a noncharacter (U+FDD0)'],
    ['1011\uffff', 'a noncharacter (U+FFFF)'],
    ['1011\u{1fffe}', 'a noncharacter (U+1FFFE)'],
    ['1011\u{50000}', 'an unassigned character (U+50000)'],
    ['10\u200011', 'a blank (U+2000)'],
    ['10\u300011', 'a blank (U+3000)'],
    ['10\u202811', 'a blank (U+2028)'],
    ['10\u202911', 'a blank (U+2029)'],
    ['10\u008511', 'a control character (U+0085)'],
    ['10\u007f11', 'a control character (U+007F)'],
    ['\uff11\uff10\uff11\uff11', 'a compatibility form of another character (U+FF11)'],
    ['1011\u00b2', 'a compatibility form of another character (U+00B2)'],
    ['\u0661\u0660\u0661\u0661', 'a digit of another script than 0-9 (U+0661)'],
    ['\u0967\u0966\u0967\u0967', 'a digit of another script than 0-9 (U+0967)'],
  ];

  it('refuses codes and terminal names with marks, variation selectors, tags, private-use, noncharacters and unassigned code points; says which', () => {
    const punches = LOOKALIKES.map(([code], i) => ({
      terminal: 'gate-1',
      biometricCode: code,
      logTime: `2026-11-22 09:00:${String(i).padStart(2, '0')}`,
    }));
    const r = journal.ingest([
      { terminal: 'gate-1', biometricCode: '1011', logTime: '2026-11-22 08:59:00' },
      ...punches,
      { terminal: 'gate-1\ufe0f', biometricCode: '1012', logTime: '2026-11-22 09:01:00' },
      // Letters of other scripts, precomposed, and symbols stay good codes.
      { terminal: 'gate-1', biometricCode: 'É-1011-名前-ก', logTime: '2026-11-22 09:02:00' },
    ]);
    expect(r).toMatchObject({ added: 2, refused: LOOKALIKES.length + 1 });
    expect(r.refusals!.map((x) => x.reason)).toEqual([
      ...LOOKALIKES.map(([, why]) => `biometric code has ${why}`),
      'terminal name has a variation selector (U+FE0F)',
    ]);
    expect(
      journal.queries
        .list()
        .map((p) => p.biometricCode)
        .sort(),
    ).toEqual(['1011', 'É-1011-名前-ก']);
    // Logged as shown: the invisible ones written out, never raw (a mark is visible: it stays).
    const kept = journal.refusedRecords.list(0).find((k) => k.terminal === 'gate-1')!;
    expect(kept.count).toBe(LOOKALIKES.length);
    expect(logs).toContain('"code":"1011\\\\ufe0f"');
    for (const c of ['\ufe0f', '\ufe0e', '\u{e0100}', '\u{e0031}', '\u0085', '\u00ad']) expect(logs).not.toContain(c);
  });

  it('a serial number with a variation selector is kept as a stand-in; names keep the marks their scripts need', () => {
    expect(serialProblem('SN-1011\ufe0f')).toBe('serial number has a variation selector (U+FE0F)');
    expect(deviceIdentity('SN-1011\ufe0f')).toMatch(/^SN-1011\?~[0-9a-f]{16}$/);
    // A decomposed "José", a Thai name with its vowel marks, a Hindi one: names, not codes.
    for (const name of ['Jose\u0301', 'สมชาย ใจดี', 'अनिल कुमार']) expect(userText(name)).toBe(name);
    // And what hides too: the listings escape it when they show it, the journal keeps it.
    expect(userText('Ana\u{e0041}')).toBe('Ana\u{e0041}');
  });
});
