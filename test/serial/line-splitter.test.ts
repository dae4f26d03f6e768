import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/sources/serial/index.js';

const push = (s: LineSplitter, text: string) => s.push(Buffer.from(text, 'latin1'));

describe('LineSplitter', () => {
  it('accepts \\n, \\r\\n and \\r endings and skips empty lines', () => {
    const s = new LineSplitter();
    expect(push(s, 'a\nb\r\nc\rd\r\r\n\ne\n').lines).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('joins a line split across reads, including a \\r\\n split between its two bytes', () => {
    const s = new LineSplitter();
    expect(push(s, '1001,2026-11').lines).toEqual([]);
    expect(push(s, '-22 08:00:01\r').lines).toEqual(['1001,2026-11-22 08:00:01']);
    expect(push(s, '\n1002').lines).toEqual([]);
    expect(push(s, '\n').lines).toEqual(['1002']);
  });

  it('keeps bytes as latin1 so that noise never breaks decoding', () => {
    const s = new LineSplitter();
    const out = s.push(Buffer.from([0x31, 0xff, 0x00, 0x80, 0x0a]));
    expect(out.lines).toEqual(['1\u00ff\u0000\u0080']);
  });

  it('drops an over-long line once, up to its ending, across any number of reads', () => {
    const s = new LineSplitter(16);
    let overflows = 0;
    overflows += push(s, 'x'.repeat(10)).overflows;
    overflows += push(s, 'x'.repeat(10)).overflows;
    overflows += push(s, 'x'.repeat(100)).overflows;
    const end = push(s, 'yyy\nok\n');
    expect(overflows + end.overflows).toBe(1);
    expect(end.lines).toEqual(['ok']);
    // A line of exactly the cap is kept; one byte more is not.
    expect(push(s, `${'z'.repeat(16)}\n${'z'.repeat(17)}\n`)).toEqual({ lines: ['z'.repeat(16)], overflows: 1 });
  });

  it('reset() forgets a partial line and says whether there was one', () => {
    const s = new LineSplitter();
    push(s, 'half a li');
    expect(s.reset()).toBe(true);
    expect(s.reset()).toBe(false);
    expect(push(s, 'ne\n').lines).toEqual(['ne']);
  });

  it('yields the same lines however the stream is cut into reads (property)', () => {
    const line = fc.string({ unit: fc.constantFrom(...'0123456789,:- ABCxyz'), minLength: 1, maxLength: 30 });
    const ending = fc.constantFrom('\n', '\r\n', '\r');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(line, ending), { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (items, cuts) => {
          const bytes = Buffer.from(items.map(([l, e]) => l + e).join(''), 'latin1');
          const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort(
            (a, b) => a - b,
          );
          const s = new LineSplitter();
          const got: string[] = [];
          let prev = 0;
          for (const p of [...points, bytes.length]) {
            got.push(...s.push(bytes.subarray(prev, p)).lines);
            prev = p;
          }
          expect(got).toEqual(items.map(([l]) => l));
        },
      ),
      { numRuns: 300 },
    );
  });
});
