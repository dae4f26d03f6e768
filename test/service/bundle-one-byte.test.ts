import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * V8 keeps the source text of every script it runs in its heap, for lazy compilation: the whole
 * bundle, for as long as the daemon lives. A text whose characters all fit in one byte (Latin-1)
 * is kept at one byte per character; a single character beyond U+00FF (an arrow, a dash, an
 * emoji in a message) makes it two bytes per character. For the 1.9 MB bundle that was 3.7 MB of
 * the idle daemon's heap instead of 1.8 MB (BENCHMARKS.md, section 6). The bundler writes such
 * characters as escapes (rolldown.config.ts: charset 'ascii'); where it cannot (a tagged template,
 * whose raw text the tag may read), the source must spell them as an escape or an HTML entity.
 */
const bundle = join(process.cwd(), 'dist/punchgate.js');

describe('the shipped bundle', () => {
  it('has no character beyond U+00FF, so V8 keeps its source at one byte per character', () => {
    const text = readFileSync(bundle, 'utf8');
    const wide: string[] = [];
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) > 0xff) {
        const at = text.codePointAt(i)!;
        wide.push(
          `U+${at.toString(16).toUpperCase().padStart(4, '0')} in ${JSON.stringify(text.slice(i - 60, i + 20))}`,
        );
        if (at > 0xffff) i++;
      }
    }
    expect(wide).toEqual([]);
  });
});
