import { describe, expect, it } from 'vitest';
import { humanBytes } from '../../src/util/disk.js';

describe('free space in plain words', () => {
  it('never says "0 MiB free" over a disk that still has some: below a MiB it counts KiB', () => {
    // A journal on a nearly full disk read "only 0 MiB free" in status, check and the page (a trial).
    expect(humanBytes(100 * 1024)).toBe('100 KiB');
    expect(humanBytes(1023)).toBe('1023 bytes');
    expect(humanBytes(0)).toBe('0 bytes');
    expect(humanBytes(3 * 1024 * 1024 + 5)).toBe('3 MiB');
    expect(humanBytes(3.5 * 1024 ** 3)).toBe('3.5 GiB');
  });
});
