import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCodeMap, validateSerialTerminal } from '../../src/sources/serial/index.js';
import { serialConfig } from './helpers.js';
import { tempDir } from '../helpers/tmp.js';

let dir: ReturnType<typeof tempDir> | undefined;
afterEach(() => dir?.cleanup());

describe('validateSerialTerminal', () => {
  it('accepts a good regex terminal (default pattern) and a good card terminal with a code map', () => {
    dir = tempDir();
    const map = dir.path('cards.csv');
    writeFileSync(map, 'card,biometriccode\n0004521234,1042\n');
    expect(validateSerialTerminal(serialConfig({ path: '/dev/ttyUSB0' }))).toEqual([]);
    expect(validateSerialTerminal(serialConfig({ path: '/dev/ttyUSB0', format: 'card', codeMap: map }))).toEqual([]);
  });

  it('reports each problem as path: message', () => {
    dir = tempDir();
    const cfg = serialConfig({
      path: '/dev/ttyUSB0',
      pattern: '^(?<code>\\d+),(?<when>.*)$',
      timeFormat: 'YYYY-MM-DD',
      reconnectMinMs: 5000,
      reconnectMaxMs: 1000,
      codeMap: dir.path('missing.csv'),
    });
    expect(validateSerialTerminal(cfg, 'terminals[1]')).toEqual([
      'terminals[1].pattern: needs a named group "time", written (?<time>...)',
      'terminals[1].timeFormat: needs an hour (HH, H, hh or h)',
      'terminals[1].timeFormat: needs minutes (mm)',
      `terminals[1].codeMap: ${dir.path('missing.csv')}: cannot read the code map (ENOENT)`,
      'terminals[1].reconnectMinMs: must not be more than reconnectMaxMs (1000)',
    ]);
    // format: card: a pattern finds the card (group code); the time is the box's clock.
    expect(validateSerialTerminal(serialConfig({ path: '/dev/x', format: 'card', pattern: '.' }))).toEqual([
      'terminals.clock1.pattern: needs a named group "code", written (?<code>...)',
    ]);
    expect(
      validateSerialTerminal(serialConfig({ path: '/dev/x', format: 'card', pattern: 'DECIMAL = (?<code>\\d+)' })),
    ).toEqual([]);
  });
});

describe('code map', () => {
  it('keypadStates: only with format card, and no key longer than keypadMaxBytes', () => {
    const card = { path: '/dev/ttyUSB0', format: 'card' };
    expect(validateSerialTerminal(serialConfig({ ...card, keypadStates: { '1': 0, '#': 1 } }))).toEqual([]);
    expect(validateSerialTerminal(serialConfig({ ...card, keypadStates: { F1: 0 } }), 'terminals[0]')).toEqual([
      'terminals[0].keypadStates: key "F1" is longer than keypadMaxBytes (1): it would be read as a card',
    ]);
    expect(validateSerialTerminal(serialConfig({ ...card, keypadMaxBytes: 2, keypadStates: { F1: 0 } }))).toEqual([]);
    expect(
      validateSerialTerminal(serialConfig({ path: '/dev/ttyUSB0', keypadStates: { '1': 0 } }), 'terminals[0]'),
    ).toEqual(['terminals[0].keypadStates: is only used with format: card (this terminal has format: regex)']);
  });

  it('maps cards regardless of leading zeros and case, and reports bad lines with their number', () => {
    const { map, problems } = parseCodeMap(
      '\uFEFFCard,BiometricCode\r\n# staff\n"0004521234", 1042\nab12,1043\n\nbroken\n4521234,9999\n',
      'm.csv',
    );
    expect(problems).toEqual([
      'm.csv:6: expected "card,biometriccode", got "broken"',
      'm.csv:7: card 4521234 is already mapped to 1042',
    ]);
    expect(map.lookup('4521234')).toBe('1042');
    expect(map.lookup('0004521234')).toBe('1042');
    expect(map.lookup('AB12')).toBe('1043');
    expect(map.lookup('4521235')).toBeUndefined();
    expect(parseCodeMap('card,code\n1,2\n', 'x.csv').problems).toEqual([
      'x.csv:1: the first line must be the header "card,biometriccode"',
    ]);
    expect(parseCodeMap('', 'e.csv').problems).toEqual(['e.csv: empty file: expected the header "card,biometriccode"']);
  });

  it('a card written with its comma (facility,card as the tag prints it) is mapped quoted, and said plainly unquoted', () => {
    const { map, problems } = parseCodeMap('card,biometriccode\n"111,27706",1042\n197,53737,1044\n', 'm.csv');
    expect(problems).toEqual([
      'm.csv:3: the card 197,53737 needs double quotes, its comma ends a CSV cell: write "197,53737",1044',
    ]);
    // The reader's 2H+4H line 111,27706 is journalled as 0007302202 (card-code.ts): the same card.
    expect(map.lookup('0007302202')).toBe('1042');
  });
});
