// `tsc -p tsconfig.json --noEmit` without the files git neither tracks nor ignores (untracked.cjs):
// the same compiler options and file set, less a developer's scratch files in test/.
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import ts from 'typescript';

const require = createRequire(import.meta.url);
const { untrackedFiles, root } = require('./untracked.cjs');

const host = {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    report([d]);
    process.exit(2);
  },
};
const config = ts.getParsedCommandLineOfConfigFile(`${root}/tsconfig.json`, { noEmit: true }, host);
const untracked = new Set(untrackedFiles());
const files = config.fileNames.filter((f) => !untracked.has(relative(root, f).split('\\').join('/')));
if (process.argv.includes('--list-files')) {
  // What would be checked, relative to the root (for the test of this script).
  process.stdout.write(files.map((f) => relative(root, f)).join('\n') + '\n');
  process.exit(0);
}
const program = ts.createProgram({
  rootNames: files,
  options: config.options,
  projectReferences: config.projectReferences,
});
const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program)];
report(diagnostics);
process.exit(diagnostics.length > 0 ? 2 : 0);

function report(list) {
  if (list.length === 0) return;
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stdout.write(
    format(list, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }),
  );
}
