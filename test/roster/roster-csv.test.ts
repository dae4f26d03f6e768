/** The roster CSV: header rules, values, bad rows with their line, and the rows kept. */
import { describe, expect, it } from 'vitest';
import { readRosterCsv } from '../../src/roster/roster-csv.js';
import { rosterFromEmployees } from '../../src/roster/roster-hrms.js';

describe('readRosterCsv', () => {
  it('matches headers without regard to case, ignores extra columns, reads quotes, a BOM and CRLF', () => {
    const text =
      '\uFEFF Department ,CODE, Name ,Active,card\r\nOps,1001,"Doe, Jane",YES,0042\r\n\r\nIT,1002,  Bob   Ray ,,\r\nIT,1003,"O""Brien",False,\r\n';
    const r = readRosterCsv(text, 'r.csv');
    expect(r.problems).toEqual([]);
    expect(r.rows).toBe(3);
    expect(r.entries).toEqual([
      // The card's spelling is kept for terminals that store cards as text (Hikvision, Dahua).
      { code: '1001', name: 'Doe, Jane', card: 42, cardText: '0042', active: true, where: 'r.csv:2' },
      { code: '1002', name: 'Bob Ray', card: null, active: true, where: 'r.csv:4' },
      { code: '1003', name: 'O"Brien', card: null, active: false, where: 'r.csv:5' },
    ]);
  });

  it('reports each bad row with its line and keeps the others', () => {
    const text = [
      'code,name,card,active',
      '1,One,,',
      '2,Two,12x,',
      '1,Again,,',
      '3,,,1',
      '4,"Four,,',
      '5,Five,99999999999,',
      '6,Six,,perhaps',
      '7,,,0',
      'a-very-long-code-of-more-than-24-bytes,X,,',
      '8,Eight',
    ].join('\n');
    const r = readRosterCsv(text, 'r.csv');
    expect(r.entries.map((e) => `${e.where} ${e.code}`)).toEqual(['r.csv:9 7', 'r.csv:11 8']);
    expect(r.problems).toEqual([
      { where: 'r.csv:3', code: '2', message: 'card "12x" is not a decimal number' },
      {
        where: 'r.csv:4',
        code: '1',
        message:
          'code 1 is already on r.csv:2: which of the two is right is not known; neither is used and the user is left alone',
        listInDoubt: true,
      },
      { where: 'r.csv:5', code: '3', message: 'code 3: name is empty' },
      { where: 'r.csv:6', message: 'a quoted cell (cell 2) is never closed' },
      { where: 'r.csv:7', code: '5', message: 'card 99999999999 is larger than 4294967295' },
      {
        where: 'r.csv:8',
        code: '6',
        message: 'active "perhaps" is not one of 1/0, true/false, yes/no, active/blocked',
      },
      { where: 'r.csv:10', message: 'code "a-very-long-code-of-more-than-24-bytes" is 38 bytes; a terminal holds 24' },
      // Row 2 gave the same code as row 4: neither is used (which is right is not known).
      {
        where: 'r.csv:2',
        code: '1',
        message:
          'code 1 is also on r.csv:4: which of the two is right is not known; neither is used and the user is left alone',
        listInDoubt: true,
      },
    ]);
  });
});

describe('rosterFromEmployees', () => {
  it('reads the configured fields, inverts "!block", skips employees without a code', () => {
    const r = rosterFromEmployees(
      [
        { username: 'a', name: 'A', biometriccode: 11, block: 0, badge: '77' },
        { username: 'b', name: 'B', biometriccode: '12', block: 1 },
        { username: 'c', name: 'C', block: 0 },
        { username: 'd', name: 'D', biometriccode: '14', block: 'x' },
        { username: 'e', name: 'E', biometriccode: '15', badge: '0012345678' },
      ],
      { code: 'biometriccode', name: 'name', card: 'badge', active: '!block' },
    );
    expect(r.skipped).toBe(1);
    expect(r.entries).toEqual([
      { code: '11', name: 'A', card: 77, active: true, where: 'HRMS employee 1 (a)' },
      { code: '12', name: 'B', card: null, active: false, where: 'HRMS employee 2 (b)' },
      { code: '15', name: 'E', card: 12345678, cardText: '0012345678', active: true, where: 'HRMS employee 5 (e)' },
    ]);
    expect(r.problems).toEqual([
      {
        where: 'HRMS employee 4 (d)',
        code: '14',
        message: 'block: active "x" is not one of 1/0, true/false, yes/no, active/blocked',
      },
    ]);
  });
});

describe('names put on terminals: the one rule of src/punch.ts for names', () => {
  // Found by a trial: a C1 control (U+0085, "next line") or a bidirectional override in an HRMS
  // name went onto the terminals and into the ADMS command lines; only ASCII controls were refused.
  it.each([
    ['Nel\u0085x', 'a control character (U+0085)'],
    ['Evil\u202Emoc.exe', 'a bidirectional control (U+202E)'],
    ['Isolate\u2067x', 'a bidirectional control (U+2067)'],
  ])('%j is a bad row, with its line', (name, why) => {
    const r = readRosterCsv(`code,name\n1001,${name}\n1002,Good\n`, 'roster.csv');
    expect(r.entries.map((e) => e.code)).toEqual(['1002']);
    expect(r.problems).toEqual([{ where: 'roster.csv:2', code: '1001', message: expect.stringContaining(why) }]);
  });

  it('names of every script stay as they are; tabs and line breaks between words become one space', () => {
    const names = [
      'José Müller',
      'محمد عبد الله',
      '王小明',
      'देवनागरी',
      'Thumbs 👍🏽',
      'Family 👨\u200D👩\u200D👧',
      'A=B Pri=14',
    ];
    const r = readRosterCsv(
      ['code,name', ...names.map((n, i) => `${i + 1},${n}`), `9,"Tab\tand\nline"`].join('\n') + '\n',
      'roster.csv',
    );
    expect(r.problems).toEqual([]);
    expect(r.entries.map((e) => e.name)).toEqual([...names, 'Tab and line']);
  });
});
