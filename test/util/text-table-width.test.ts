import { describe, expect, it } from 'vitest';
import { employeeTable } from '../../src/employees/commands.js';
import { cutToWidth, displayWidth } from '../../src/util/display-width.js';
import { textTable } from '../../src/util/text-table.js';

/** Where each line's column starts, in display columns (the test counts as a terminal does). */
function columnOf(line: string, text: string): number {
  return displayWidth(line.slice(0, line.indexOf(text)));
}

describe('tables line up by display width', () => {
  it('counts CJK and emoji as two columns, combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('山田太郎')).toBe(8);
    expect(displayWidth('김민준')).toBe(6);
    expect(displayWidth('ＡＢ')).toBe(4);
    expect(displayWidth('Zoë')).toBe(3);
    expect(displayWidth('Zoe\u0308')).toBe(3);
    expect(displayWidth('Ana 😀')).toBe(6);
    expect(displayWidth('👨‍👩‍👧')).toBe(2);
    expect(displayWidth('🇮🇳')).toBe(2);
  });

  it('employees fetch: the e-mail column starts at the same place on every row', () => {
    const text = employeeTable(
      [
        { username: 'u1', name: '山田太郎', email: 'a@x' },
        { username: 'u2', name: 'Ana 😀', email: 'b@x' },
        { username: 'u3', name: 'Zoe\u0308 Ng', email: 'c@x' },
        { username: 'u4', name: 'John Smith', email: 'd@x' },
      ],
      'username',
    );
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    const at = lines.map((l, i) => columnOf(l, i === 0 ? 'email' : '@x') - (i === 0 ? 0 : 1));
    expect(at).toEqual([22, 22, 22, 22, 22]);
  });

  it('right-aligned columns too, and a long wide cell is cut whole', () => {
    const lines = textTable(
      ['NAME', 'N'],
      [
        ['日本', '7'],
        ['ab', '12'],
      ],
      { right: [1] },
    )
      .trimEnd()
      .split('\n');
    expect(lines.map(displayWidth)).toEqual([8, 8, 8]);
    const cut = cutToWidth('😀'.repeat(40), 60);
    expect(displayWidth(cut)).toBeLessThanOrEqual(60);
    expect(cut).toBe(`${'😀'.repeat(28)}...`);
  });
});
