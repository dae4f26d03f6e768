import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Files of the installed package, found from the running code. The code runs either as the
 * shipped bundle (dist/punchgate.js) or as the compiled tree (dist/src/..., in tests), so
 * paths are found by walking up to the folder holding package.json, not by counting "..".
 */
export function packageRoot(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(from)}`);
    dir = up;
  }
  return dir;
}

/** The CLI to start as a child process: the bundle when it was built, else the compiled tree. */
export function cliEntry(root: string = packageRoot()): string {
  const bundle = join(root, 'dist', 'punchgate.js');
  return existsSync(bundle) ? bundle : join(root, 'dist', 'src', 'cli', 'main.js');
}
