// `prettier --check` over the checkout's tracked files (see untracked.cjs); .prettierignore still
// applies to each of them, and files prettier has no parser for are skipped. Outside a git
// checkout: `prettier --check .`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { trackedFiles, root } = require('./untracked.cjs');
const prettier = require.resolve('prettier/bin/prettier.cjs');
const files = trackedFiles();
const args = files ? ['--check', '--ignore-unknown', '--', ...files] : ['--check', '.'];
const r = spawnSync(process.execPath, [prettier, ...args], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
