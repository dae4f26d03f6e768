import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { tempDir } from '../helpers/tmp.js';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A temp folder with a config (journal inside it, no terminals unless given) for CLI child processes. */
export function cliSandbox(extra: Record<string, unknown> = {}) {
  const tmp = tempDir('punchgate-cli-');
  const config = tmp.path('punchgate.yaml');
  writeFileSync(
    config,
    stringify({
      site: 'plant-a',
      journal: { path: 'journal.db' },
      hrms: { baseUrl: 'http://127.0.0.1:9' },
      terminals: [],
      ...extra,
    }),
  );
  /** Runs `punchgate --config <sandbox config> ...args` as a child, without blocking this process. */
  const cli = (...args: string[]) =>
    new Promise<CliResult>((resolve) => {
      execFile(
        process.execPath,
        ['dist/punchgate.js', '--config', config, ...args],
        { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) => resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  return { tmp, config, cli };
}
