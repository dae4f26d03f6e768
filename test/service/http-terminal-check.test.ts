/**
 * The words `check` gives of the HTTP terminals (Dahua, Hikvision) from one place
 * (src/check/http-terminal-check.ts): they are the admin's, so each is pinned here.
 */
import { describe, expect, it } from 'vitest';
import { clockVerdict, deviceWords, refusalStopsCheck, transportWords } from '../../src/check/http-terminal-check.js';
import { localTime } from '../../src/util/local-time.js';

describe('check words of the HTTP terminals', () => {
  it('a refusal that still waits fails without a try, locked or not', () => {
    const at = Date.UTC(2026, 10, 28, 9, 0, 0);
    const next = at + 5 * 60_000;
    const refused = refusalStopsCheck('terminal gate', 'gate', { at, locked: false }, next, 'the fix');
    expect(refused).toMatchObject({
      status: 'fail',
      name: 'terminal gate',
      detail: `gate refuses the password (met by punchgate at ${localTime(at)}; next try at ${localTime(next)}); not tried again by check, so as not to lock the account`,
      fix: 'the fix',
    });
    const locked = refusalStopsCheck('terminal gate', 'gate', { at, locked: true }, next, 'the fix');
    expect(locked.detail).toMatch(/^gate has locked the account after repeated wrong passwords \(met by punchgate/);
  });

  it('names the transport and the device as before', () => {
    expect(transportWords(false, true, true)).toBe(' (plain http)');
    expect(transportWords(true, true, true)).toBe(' (TLS, certificate pinned)');
    expect(transportWords(true, false, true)).toBe(' (TLS, CA file)');
    expect(transportWords(true, false)).toBe(' (TLS)');
    expect(deviceWords('SN1', 'DS-K1T', 'V3.2')).toBe('serial SN1, DS-K1T V3.2');
    expect(deviceWords('', undefined, undefined)).toBe('serial unknown');
  });

  it('a clock off by more than the threshold warns, at the threshold it passes', () => {
    expect(clockVerdict('terminal gate', 'facts', 45, 30, 'set it')).toMatchObject({
      status: 'warn',
      detail: 'facts; the terminal clock is 45 s ahead',
      fix: 'set it',
    });
    expect(clockVerdict('terminal gate', 'facts', -30, 30, 'set it')).toMatchObject({
      status: 'pass',
      detail: 'facts',
    });
  });
});
