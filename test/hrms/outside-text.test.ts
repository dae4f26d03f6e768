import { describe, expect, it } from 'vitest';
import { outsideText } from '../../src/hrms/text.js';

const asIs = (s: string) => s;
/** What escapeControls (the terminal's and the log's rule) counts as hidden, less the tab and line feed outsideText turns into a blank. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/u;

describe('an HRMS message as it is kept in the journal and written by punches export', () => {
  // Found by an adversarial trial: an HRMS refusal with a LINE SEPARATOR reached the CSV of
  // `punches export` raw (the journal keeps the message as outsideText made it, and the export
  // writes it as it is), as did zero-width characters, a BOM and tag characters.
  it.each([
    ['a line separator', 'Unknown code\u2028FORGED'],
    ['a paragraph separator', 'Unknown code\u2029FORGED'],
    ['a zero-width space', '10\u200b42 unknown'],
    ['a byte order mark', '\ufeffUnknown code'],
    ['a tag character', 'Unknown code\u{E0041}'],
    ['a lone surrogate', 'Unknown code\ud800'],
    ['a noncharacter', 'Unknown code\ufffe'],
    ['a Hangul filler', 'Unknown\u3164code'],
  ])('writes %s as a visible escape', (_what, message) => {
    const kept = outsideText(message, asIs);
    expect(kept).not.toMatch(HIDDEN);
    expect(kept).toMatch(/\\u/);
  });

  it('writes a tower of combining marks past the fourth as escapes, as the terminal and the page do', () => {
    const kept = outsideText(`Z${'\u0301'.repeat(40)}algo`, asIs);
    expect(kept).toBe(`Z${'\u0301'.repeat(4)}${'\\u0301'.repeat(36)}algo`);
  });

  it('keeps the escapes it wrote before (\\uXXXX, what JSON reads back), and blanks for tabs and line ends', () => {
    expect(outsideText('bad\u001b[2Jcode\u202e', asIs)).toBe('bad\\u001b[2Jcode\\u202e');
    expect(outsideText('line one\r\n\tline two', asIs)).toBe('line one\\u000d line two');
    expect(outsideText('Unknown biometric code 1042', asIs)).toBe('Unknown biometric code 1042');
    expect(outsideText('Fehlerhafte Stempelung für José – 東京', asIs)).toBe('Fehlerhafte Stempelung für José – 東京');
  });

  it('writes a character beyond the BMP as the pair JSON writes', () => {
    expect(outsideText('x\u{E0001}y', asIs)).toBe('x\\udb40\\udc01y');
  });
});

describe('a long HRMS message cut to 300 characters', () => {
  it('is cut between characters, never inside one beyond the BMP (no lone surrogate kept)', () => {
    const kept = outsideText(`${'x'.repeat(299)}😀 and more`, asIs);
    expect(kept).toBe(`${'x'.repeat(299)}😀...`);
    expect(kept).not.toMatch(/\p{Cs}/u);
  });
});
