import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MultipartStreamParser, StreamBoundError, type StreamPart } from '../../src/sources/hikvision/multipart.js';

/**
 * The alert-stream parser against the same stream cut at random points: each byte is measured
 * once, whatever the chunks (a Dahua parser that counted the bytes it searched again refused a
 * 60 kB part sent 8 bytes at a time as one of more than 256 kB).
 */
const BOUNDARY = 'boundary';

/** Splits `bytes` at the given points (taken modulo its length, sorted). */
function splitAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    if (c > from) out.push(bytes.subarray(from, c));
    from = Math.max(from, c);
  }
  return out;
}

/** The parts (or the bound broken) of a stream fed in the given chunks. */
function parse(chunks: Buffer[], maxPartBytes: number): { parts: string[]; broke?: string } {
  const parts: StreamPart[] = [];
  const p = new MultipartStreamParser(BOUNDARY, (part) => parts.push(part), { maxPartBytes, maxHeadBytes: 1024 });
  try {
    for (const c of chunks) p.push(c);
  } catch (e) {
    if (!(e instanceof StreamBoundError)) throw e;
    return { parts: parts.map((x) => `${x.contentType}|${x.body.toString('latin1')}`), broke: e.message };
  }
  return { parts: parts.map((x) => `${x.contentType}|${x.body.toString('latin1')}`) };
}

describe('Hikvision alert-stream parser: the same stream cut anywhere gives the same parts', () => {
  it('with and without Content-Length, CRLF or LF heads, parts near the bound (property)', () => {
    const body = fc.string({ unit: fc.constantFrom('a', '-', '{', '}', 'x'), maxLength: 400 });
    const onePart = fc.record({ body, sized: fc.boolean(), lf: fc.boolean() }).map(({ body: b, sized, lf }) => {
      const nl = lf ? '\n' : '\r\n';
      const head = `--${BOUNDARY}${nl}Content-Type: application/json${nl}${sized ? `Content-Length: ${b.length}${nl}` : ''}${nl}`;
      return `${head}${b}\r\n`;
    });
    fc.assert(
      fc.property(
        fc.array(onePart, { maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 80 }),
        fc.integer({ min: 8, max: 120 }),
        (parts, cuts, maxPartBytes) => {
          const stream = Buffer.from(`stray\r\n${parts.join('')}--${BOUNDARY}\r\n`, 'latin1');
          const whole = parse([stream], maxPartBytes);
          expect(parse(splitAt(stream, cuts), maxPartBytes)).toEqual(whole);
          // One byte at a time, the slowest link there is.
          expect(parse(splitAt(stream, [...Array(stream.length).keys()]), maxPartBytes)).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });
});
