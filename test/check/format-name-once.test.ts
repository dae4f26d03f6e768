import { describe, expect, it } from 'vitest';
import { formatReport } from '../../src/check/format.js';

/**
 * A terminal's check line is "FAIL terminal gate: <detail>". A detail led by the terminal's name
 * (a refused password, met by the daemon) said it twice: "FAIL terminal gate: gate refuses the
 * password ...". Said once; the JSON keeps the check's name and detail as they are.
 */
describe('punchgate check: a terminal named once in its line', () => {
  const report = (detail: string) => ({
    version: '0',
    ok: false,
    exitCode: 1,
    quick: false,
    checks: [{ name: 'terminal gate', status: 'fail' as const, detail, fix: 'put the right password in PW' }],
  });

  it('a detail led by the name', () => {
    const out = formatReport(report('gate refuses the password (met by punchgate at 10:00)'));
    expect(out).toContain(
      'FAIL terminal gate refuses the password (met by punchgate at 10:00) — put the right password in PW',
    );
  });

  it('any other detail after the name, as before', () => {
    const out = formatReport(report('no answer from 10.0.0.7:80 within 5 s'));
    expect(out).toContain('FAIL terminal gate: no answer from 10.0.0.7:80 within 5 s — put the right password in PW');
    // A name that only begins like another word is not taken for it.
    expect(formatReport(report('gateway 10.0.0.1 did not answer'))).toContain('FAIL terminal gate: gateway 10.0.0.1');
  });
});
