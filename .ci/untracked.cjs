// Files of this checkout that git neither tracks nor ignores: a scratch file a developer left in
// the root or in test/. The checks of `npm test` (eslint, prettier, tsc, vitest, dependency-cruiser)
// leave them out, so that they judge the project, not what lies around it. A new file counts once
// it is added (`git add`, or `git add -N` to only announce it). Outside a git checkout (a copy of
// the tree, an unpacked tarball) nothing is left out.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');

/** Paths relative to the checkout's root, with `/` separators. */
function untrackedFiles() {
  try {
    return execFileSync('git', ['ls-files', '--others', '--exclude-standard', '-z'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .split('\0')
      .filter(Boolean);
  } catch {
    return [];
  }
}

/** Tracked files that are still there (a deleted one is not checked). */
function trackedFiles() {
  try {
    const list = (args) =>
      execFileSync('git', ['ls-files', '-z', ...args], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .split('\0')
        .filter(Boolean);
    const deleted = new Set(list(['--deleted']));
    return list(['--cached']).filter((f) => !deleted.has(f));
  } catch {
    return undefined;
  }
}

/** A regular expression matching exactly these paths (for dependency-cruiser's exclude). */
const exactly = (paths) => paths.map((p) => `^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

module.exports = { untrackedFiles, trackedFiles, exactly, root };
