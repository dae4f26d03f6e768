import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, type LogFormat } from '../../src/util/logger.js';
import { safeJson } from '../../src/util/terminal-text.js';

/**
 * A device's or an HRMS's text in a log line, in every log format: no C1 control (U+0085 NEL, which
 * some readers take as a line break; U+009B CSI), DEL, bidirectional override, zero-width or tag
 * character reaches the log raw, and no CR or LF forges a line of its own. The JSON line reads back
 * as the same text (JSON's own escapes); the readable forms write the characters out.
 */
const HOSTILE = 'Ver 6.60\u0085\u009b2J\u007f\u202eFW\u200b\u{e0041}\r\nINFO forged line\u2028x';
const RAW = /[\u007f-\u009f\u200b\u202e\u2028\r]|\u{e0041}/u;

function lines(format: LogFormat): string {
  let out = '';
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  const log = createLogger({ format, destination });
  // The message is punchgate's own text (a device's quoted in it is printable() already); its
  // fields carry what devices said as it came.
  log.warn({ firmware: HOSTILE, answer: { model: HOSTILE } }, `terminal gate-1 says \u0085\u202e`);
  log.info('a plain line');
  return out;
}

describe('log lines carry no raw control or invisible character', () => {
  it.each(['json', 'text', 'journal'] as const)('%s: one line per entry, every hostile character escaped', (format) => {
    const out = lines(format);
    expect(RAW.exec(out), out).toBeNull();
    expect(out.split('\n').filter(Boolean)).toHaveLength(2);
    if (format === 'json') {
      const first = JSON.parse(out.split('\n')[0]!) as { firmware: string; answer: { model: string }; msg: string };
      expect(first.firmware).toBe(HOSTILE);
      expect(first.answer.model).toBe(HOSTILE);
      expect(first.msg).toBe(`terminal gate-1 says \u0085\u202e`);
    } else {
      expect(out).toContain('terminal gate-1 says \\x85\\u202e');
      expect(out).toContain('Ver 6.60\\x85\\x9b2J\\x7f\\u202eFW\\u200b\\u{e0041}\\x0d\\x0aINFO forged line\\u2028x');
    }
  });

  it('safeJson: the same value read back, nothing raw, whatever the nesting', () => {
    const value = { a: [HOSTILE, { b: HOSTILE }], n: 1 };
    for (const text of [safeJson(value), safeJson(value, 2)]) {
      expect(RAW.exec(text)).toBeNull();
      expect(JSON.parse(text)).toEqual(value);
    }
  });
});
