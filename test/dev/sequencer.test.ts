import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LONG_FILES } from '../sequencer.js';

/** The sequencer's list of long files names files that exist (a renamed file would quietly start last). */
describe('the longest-first list of test files', () => {
  it('names test files of this repository, longest first', () => {
    const files = Object.keys(LONG_FILES);
    expect(files.filter((f) => !existsSync(f) || !f.endsWith('.test.ts'))).toEqual([]);
    const seconds = Object.values(LONG_FILES);
    expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
  });
});
