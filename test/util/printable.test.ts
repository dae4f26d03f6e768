import { describe, expect, it } from 'vitest';
import { printable } from '../../src/util/printable.js';

describe('printable', () => {
  it('shows control characters and direction overrides as escapes, everything else as it is', () => {
    expect(printable('Unknown code 1042')).toBe('Unknown code 1042');
    expect(printable('a\u001b[31mred\u0007\r\nb')).toBe('a\\x1b[31mred\\x07\\x0d\\x0ab');
    expect(printable('x\u009by\u007f')).toBe('x\\x9by\\x7f');
    expect(printable('evil\u202etxt.exe \u2066z\u2069')).toBe('evil\\u202etxt.exe \\u2066z\\u2069');
    expect(printable('Müller Çelik 山田 – ok')).toBe('Müller Çelik 山田 – ok');
  });
});
