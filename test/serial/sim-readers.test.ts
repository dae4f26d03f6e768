import { describe, expect, it } from 'vitest';
import { ReaderSteps } from '../../src/sim/serial/readers.js';

/** The serial simulator's RDM6300 readers take the numbers printed on tags, never a text that makes no frame. */
describe('simulated RDM6300 readers', () => {
  it('refuse a code that is no printed tag number (a new-user trial saw "1a00000nan10" sent)', () => {
    for (const reader of ['rdm6300', 'rdm6300-held'] as const) {
      expect(() => new ReaderSteps(reader, { codes: ['1A12345678'] })).toThrow(/up to 10 decimal digits/);
      expect(() => new ReaderSteps(reader, { codes: ['4294967296'] })).toThrow(/at most 4294967295/);
      const steps = new ReaderSteps(reader, { codes: ['0012964329'] }).next();
      // eslint-disable-next-line no-control-regex -- STX and ETX are the frame
      expect(steps[0]!.bytes).toMatch(/^\x02[0-9A-Fa-f]{12}\x03$/);
    }
  });
});
