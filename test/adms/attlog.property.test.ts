import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAttlog } from '../../src/sources/adms/index.js';

const two = (n: number) => String(n).padStart(2, '0');

/** A real calendar time `YYYY-MM-DD HH:MM:SS`. */
const logTime = fc
  .date({ min: new Date(Date.UTC(2000, 0, 1)), max: new Date(Date.UTC(2099, 11, 31)), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 19).replace('T', ' '));

/** A PIN as terminals have them: digits, letters (`4x`), a few symbols. */
const pin = fc.stringMatching(/^[A-Za-z0-9_.-]{1,24}$/);
const smallInt = fc.oneof(fc.constant(''), fc.integer({ min: 0, max: 255 }).map(String));

/** A well-formed ATTLOG line with the optional fields firmware adds (or not), and its expected record. */
const goodLine = fc
  .record({
    pin,
    time: logTime,
    status: smallInt,
    verify: smallInt,
    tail: fc.array(fc.stringMatching(/^[A-Za-z0-9+/=.]{0,12}$/), { maxLength: 8 }),
    cr: fc.boolean(),
  })
  .map((g) => ({
    text: [g.pin, g.time, g.status, g.verify, ...g.tail].join('\t') + (g.cr ? '\r' : ''),
    expected: {
      pin: g.pin,
      logTime: g.time,
      status: g.status === '' ? null : Number(g.status),
      verify: g.verify === '' ? null : Number(g.verify),
    },
  }));

/** Anything at all, including control characters, lone surrogates and lines without a tab. */
const anyLine = fc.oneof(
  // One line each: a newline inside would make two lines and shift the numbering the test checks.
  fc.string({ unit: 'binary', maxLength: 60 }).map((s) => s.replace(/\n/g, '')),
  fc.string({ maxLength: 60 }).map((s) => s.replace(/\n/g, '')),
  fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 25 })).map(([a, b]) => `${a}\t${b}`.replace(/\n/g, '')),
  logTime.map((t) => `\t${t}\t0\t1`),
  fc.tuple(pin, fc.integer({ min: 0, max: 99 })).map(([p, m]) => `${p}\t2026-${two(m)}-31 25:61:00`),
);

describe('ATTLOG line parser (property)', () => {
  it('never throws, and keeps every well-formed line, in order, whatever surrounds it', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            goodLine.map((g) => ({ good: g })),
            anyLine.map((text) => ({ noise: text })),
          ),
          {
            maxLength: 40,
          },
        ),
        (items) => {
          const body = items.map((i) => ('good' in i ? i.good.text : i.noise)).join('\n');
          const parsed = parseAttlog(body);
          const kept = parsed.records.map((r) => ({
            pin: r.pin,
            logTime: r.logTime,
            status: r.status,
            verify: r.verify,
          }));
          const keptLines = new Set(parsed.records.map((r) => r.line));
          // Every well-formed line is kept, with its own line number.
          items.forEach((item, i) => {
            if ('good' in item) expect(keptLines.has(i + 1)).toBe(true);
          });
          const goodLines = new Set(items.flatMap((item, i) => ('good' in item ? [i + 1] : [])));
          const expectedGood = items.flatMap((item) => ('good' in item ? [item.good.expected] : []));
          expect(kept.filter((_, k) => goodLines.has(parsed.records[k]!.line))).toEqual(expectedGood);
          // Nothing is both kept and reported, and every report names a real line.
          for (const m of parsed.malformed) {
            expect(keptLines.has(m.line)).toBe(false);
            expect(m.line).toBeGreaterThanOrEqual(1);
            expect(m.line).toBeLessThanOrEqual(items.length);
            // eslint-disable-next-line no-control-regex -- the reported text must be safe to log
            expect(m.text).not.toMatch(/[\u0000-\u001f\u007f]/);
          }
          // A kept record is always journal-worthy: a PIN with no control or blank, a real time.
          for (const r of parsed.records) {
            // eslint-disable-next-line no-control-regex -- checking for control characters
            expect(r.pin).not.toMatch(/[\u0000-\u001f\u007f-\u009f\s\ufffd]/);
            expect(r.logTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('refuses what looks like a punch but is not one', () => {
    const { records, malformed } = parseAttlog(
      [
        '1001 2026-11-01 08:00:00',
        '1001\t2026-02-29 08:00:00',
        // A zoned time names another instant than the wall clock (the T form alone is read: wall-time.ts).
        '1001\t2026-11-01T08:00:00Z',
        '1001\t1700000000',
        '\u202e1001\t2026-11-01 08:00:00',
        '\ufffd1\t2026-11-01 08:00:00',
        '10 01\t2026-11-01 08:00:00',
        '1001\t2024-02-29 23:59:59',
      ].join('\n'),
    );
    expect(records.map((r) => r.line)).toEqual([8]);
    expect(malformed.map((m) => [m.line, m.reason])).toEqual([
      [1, 'no tab between the fields'],
      [2, 'bad date "2026-02-29 08:00:00" (expected YYYY-MM-DD HH:MM:SS)'],
      [3, 'bad date "2026-11-01T08:00:00Z" (expected YYYY-MM-DD HH:MM:SS)'],
      [4, 'bad date "1700000000" (expected YYYY-MM-DD HH:MM:SS)'],
      [5, 'biometric code has a bidirectional control (U+202E)'],
      [6, 'biometric code has bytes that are not UTF-8 (U+FFFD)'],
      [7, 'biometric code has a blank (U+0020)'],
    ]);
  });
});
