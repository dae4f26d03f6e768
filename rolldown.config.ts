/**
 * The shipped CLI is one bundled file, dist/punchgate.js, built from the compiled tree
 * (dist/src, by tsc). Why: a daemon on a small box pays for every module it loads (parsed
 * source, module records, unused exports such as zod's 40 locales); one tree-shaken file
 * loads about 12 MB less than the same code as ~200 separate modules (BENCHMARKS.md).
 * Native modules stay outside: they are loaded from node_modules at run time.
 */
import { chmodSync } from 'node:fs';
import type { BuildOptions } from 'rolldown';

/** Also used by test/global-setup.ts, which builds the bundle before the suite. */
export const bundleOptions = {
  input: 'dist/src/cli/main.js',
  platform: 'node',
  external: ['better-sqlite3', 'better-sqlite3-napi', 'serialport', 'unix-dgram', /^node:/],
  output: {
    file: 'dist/punchgate.js',
    format: 'esm',
    codeSplitting: false,
    // Minified: Node keeps every script's source text in memory (~0.5 MB less); the source map
    // gives readable stack traces when needed (`node --enable-source-maps`).
    minify: true,
    // Non-ASCII characters written as escapes: Node keeps a script's source text at one byte per
    // character only when it is all ASCII (Node 24, which the packages carry; Node 20 when it is
    // all Latin-1), else at two: 1.8 MB more in the idle daemon (BENCHMARKS.md, section 6).
    // test/service/bundle-one-byte.test.ts says where one got through: a tagged template keeps
    // its characters as written (use an escape or an HTML entity there); a licence comment's
    // are escaped below.
    charset: 'ascii',
    sourcemap: true,
  },
  plugins: [
    {
      // The licence comments kept from bundled packages, with their non-ASCII characters (an
      // author's name) spelled as \u escapes: the notice stays, and the bundle stays ASCII.
      name: 'ascii-licence-comments',
      renderChunk: (code) => ({ code: asciiLicenceComments(code), map: null }),
    },
    {
      // Executable, as npm makes the installed bin: its #! line is then what runs it (tests run it so).
      name: 'executable',
      writeBundle: () => chmodSync('dist/punchgate.js', 0o755),
    },
  ],
} satisfies BuildOptions;

export default bundleOptions;

/** `/*! ... *\/` comments with each character beyond ASCII written as `\\uXXXX`. */
export function asciiLicenceComments(code: string): string {
  return code.replace(/\/\*![\s\S]*?\*\//g, (comment) =>
    comment.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}
