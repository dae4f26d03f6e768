import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asciiLicenceComments } from '../../rolldown.config.js';

/**
 * Node keeps the source text of every script it runs in V8's heap, for lazy compilation: the
 * whole bundle, for as long as the daemon lives. A text that is all ASCII is kept at one byte per
 * character; one character beyond (a dash, an arrow, a middle dot, an author's name in a licence
 * comment) makes it two bytes per character on Node 24, which the packages carry (Node 20 does so
 * beyond U+00FF). For the 1.9 MB bundle that was 3.7 MB of the idle daemon's heap instead of
 * 1.8 MB (BENCHMARKS.md, section 6). The bundler writes such characters as escapes
 * (rolldown.config.ts: charset 'ascii'); where it cannot (a tagged template, whose raw text the tag
 * may read), the source spells them as an escape or an HTML entity.
 */
const bundle = join(process.cwd(), 'dist/punchgate.js');

describe('the shipped bundle', () => {
  it('is all ASCII, so Node keeps its source at one byte per character', () => {
    const text = readFileSync(bundle, 'utf8');
    const wide: string[] = [];
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) > 0x7f) {
        const at = text.codePointAt(i)!;
        wide.push(
          `U+${at.toString(16).toUpperCase().padStart(4, '0')} in ${JSON.stringify(text.slice(i - 60, i + 20))}`,
        );
        if (at > 0xffff) i++;
      }
    }
    expect(wide).toEqual([]);
  });

  it('licence comments keep their words, their non-ASCII characters as \\u escapes; the code around them is not touched', () => {
    const code = '/*! pkg. MIT License. Jimmy Wärting */\nconst a = `·`;\n/*! ws. MIT License. Einar */';
    expect(asciiLicenceComments(code)).toBe(
      '/*! pkg. MIT License. Jimmy W\\u00e4rting */\nconst a = `·`;\n/*! ws. MIT License. Einar */',
    );
  });
});
