import { describe, expect, it } from 'vitest';
import { formatReport } from '../../src/check/format.js';

/** `punchgate check`'s lines quote serials, addresses and servers' words: one rule for the whole line. */
describe('the check report', () => {
  it('escapes control characters in every part of a line: name, detail and fix', () => {
    const text = formatReport({
      version: 'x',
      ok: true,
      exitCode: 0,
      quick: false,
      checks: [
        { name: 'terminal a\u001b[2J', status: 'warn', detail: 'said\nFORGED', fix: 'do \u202eit\r\nPASS hrms: ok' },
      ],
    });
    expect(text.split('\n')[1]).toBe('WARN terminal a\\x1b[2J: said\\x0aFORGED — do \\u202eit\\x0d\\x0aPASS hrms: ok');
    expect(text).not.toMatch(/^PASS hrms/m);
  });
});
