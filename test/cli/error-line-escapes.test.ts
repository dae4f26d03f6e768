import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportError } from '../../src/cli/common.js';
import { EXIT, ExitError } from '../../src/util/exit-codes.js';

/** Raw characters a screen acts on or hides: C0 but tab and line feed, DEL, C1, bidi controls, separators, zero-width. */
// eslint-disable-next-line no-control-regex -- raw control characters are what the test looks for
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b]/u;

/**
 * A command's error line on stderr quotes whatever a terminal or an HRMS said (an ExitError's
 * message, any error's message): escaped there, whatever the code that built the message did.
 */
describe('the error line a command prints', () => {
  const exitCode = process.exitCode;
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = exitCode;
  });

  const printed = (e: unknown) => {
    let text = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      text += String(chunk);
      return true;
    });
    reportError(e, 'terminals');
    return text;
  };

  it.each([
    [
      'an ExitError',
      new ExitError('gate: the terminal said "\u001b[2J\u009b31m\u202eLIVE\u2028FORGED\u200b"', EXIT.FAILURE),
    ],
    ['any other error', new Error('gate: the terminal said "\u001b[2J\u009b31m\u202eLIVE\u2028FORGED\u200b"')],
  ])('%s: no raw control or invisible character, each written as a visible escape', (_what, e) => {
    const text = printed(e);
    expect(text).not.toMatch(RAW);
    expect(text).toBe('punchgate: gate: the terminal said "\\x1b[2J\\x9b31m\\u202eLIVE\\u2028FORGED\\u200b"\n');
  });

  it('keeps the line breaks of a message of several lines', () => {
    expect(printed(new ExitError('data.csv: nothing sent:\n  line 2: bad\n  line 3: bad', EXIT.DATAERR))).toBe(
      'punchgate: data.csv: nothing sent:\n  line 2: bad\n  line 3: bad\n',
    );
  });
});
