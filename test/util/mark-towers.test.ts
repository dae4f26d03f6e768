import { describe, expect, it } from 'vitest';
import { escapeControls, printable } from '../../src/util/terminal-text.js';
import { html } from '../../src/web/html.js';
import { textTable } from '../../src/util/text-table.js';

/**
 * A tower of combining marks on one letter ("Zalgo" text) in a device's or an HRMS's words: a
 * browser and a terminal draw it far above and below its line, over the figures of the lines
 * around it (seen on the status page with an HRMS's error message). Shown text keeps a few marks
 * on a letter, as every script writes them, and writes the rest out as escapes.
 */
const MARKS = [...Array(60).keys()].map((i) => String.fromCodePoint(0x300 + i)).join('');
const TOWER = `Z${MARKS}ok`;
const RAW_MARK = /\p{M}/gu;

describe('combining marks past a few on one letter are written out', () => {
  it('escapeControls keeps four marks on the letter and escapes the others', () => {
    const shown = escapeControls(TOWER);
    expect(shown.match(RAW_MARK)).toHaveLength(4);
    expect(shown.startsWith(`Z${MARKS.slice(0, 4)}\\u0304\\u0305`)).toBe(true);
    expect(shown.endsWith('\\u033bok')).toBe(true);
  });

  it.each([
    ['Vietnamese, decomposed', 'Vie\u0323\u0302t Nam'],
    ['Thai', 'น้ำ ที่ดี'],
    ['Hebrew with points and a cantillation mark', 'בְּרֵאשִׁ֖ית'],
    ['Devanagari', 'क्षत्रिय'],
    ['an enclosing mark', '1\u20e3'],
  ])('%s: left as written', (_name, text) => {
    expect(escapeControls(text)).toBe(text);
  });

  it('the page, the status text and the tables show the escapes, not the tower', () => {
    for (const shown of [html`<span>${TOWER}</span>`.text, printable(TOWER, 500), textTable(['NAME'], [[TOWER]])])
      expect(shown.match(RAW_MARK)).toHaveLength(4);
  });
});
