import { mkdirSync, readFileSync } from 'node:fs';
import { readProblem } from '../../util/read-problem.js';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { convertFrappeSync, FrappeSyncInputError } from '../../config/import/frappe-sync.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { chownNewFolder, writeFileWhole, writePrivateFile } from '../../util/private-file.js';
import { localUser, SERVICE_USER } from '../../util/service-user.js';
import { escapeControls } from '../../util/terminal-text.js';
import { action } from '../common.js';

export interface ImportConfigOptions {
  output?: string;
  secretsDir?: string;
  site?: string;
  journal?: string;
  /** Run as root: the account the secret files are handed to (default punchgate). */
  owner?: string;
}

export interface ImportConfigIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Where the key and secret go when no --secrets-dir is given (the admin puts them there). */
const DEFAULT_SECRETS_DIR = '/etc/punchgate';

/**
 * `punchgate import-config frappe-sync local_config.py`: the Frappe sync tool's settings as a
 * punchgate config (stdout or --output), the API key and secret in files of --secrets-dir (0600,
 * never printed), and on stderr what could not be mapped and why.
 */
export function runImportFrappeSync(file: string, o: ImportConfigOptions, io: ImportConfigIo): number {
  const shown = escapeControls(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ExitError(`${shown}: cannot read ${readProblem(e)}`, EXIT.NOINPUT);
  }
  const dir = resolve(o.secretsDir ?? DEFAULT_SECRETS_DIR);
  const apiKeyFile = resolve(dir, 'frappe-api-key');
  const apiSecretFile = resolve(dir, 'frappe-api-secret');
  let r;
  try {
    r = convertFrappeSync(text, {
      file,
      apiKeyFile,
      apiSecretFile,
      ...(o.site ? { site: o.site } : {}),
      ...(o.journal ? { journalPath: o.journal } : {}),
    });
  } catch (e) {
    if (e instanceof FrappeSyncInputError)
      throw new ExitError(`${shown}:${e.line || 1}: ${escapeControls(e.message)}`, EXIT.DATAERR);
    throw e;
  }
  // Run with sudo (as the docs do, into /etc/punchgate), the files would be root's 0600 and the
  // service, which runs as punchgate, could not read them: they are handed to the service user.
  const owner = o.owner ?? SERVICE_USER;
  const asRoot = process.getuid?.() === 0;
  const handTo = asRoot ? localUser(owner) : undefined;
  if (o.secretsDir) {
    try {
      const made = mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (made !== undefined && handTo) chownNewFolder(dir, handTo.uid, handTo.gid);
      for (const [path, value] of [
        [apiKeyFile, r.secrets.apiKey],
        [apiSecretFile, r.secrets.apiSecret],
      ] as const) {
        if (!value) continue;
        // Handed to the service user on the open file: the folder may be that user's (this command
        // made it so on an earlier run), who could swap the name for a link before a chown by name.
        writePrivateFile(path, `${value}\n`, handTo);
      }
    } catch (e) {
      throw new ExitError(
        `--secrets-dir: cannot write in ${escapeControls(dir)} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
        EXIT.FAILURE,
      );
    }
  }
  if (o.output) {
    try {
      writeFileWhole(o.output, r.yaml, 0o644);
    } catch (e) {
      throw new ExitError(
        `--output: cannot write ${escapeControls(o.output)} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
        EXIT.FAILURE,
      );
    }
  } else io.out(r.yaml);

  const lines: string[] = [];
  if (o.secretsDir) {
    if (r.secrets.apiKey || r.secrets.apiSecret)
      lines.push(
        `the API key and secret are in ${escapeControls(apiKeyFile)} and ${escapeControls(apiSecretFile)} (mode 0600, ${ownedBy(owner, asRoot, handTo !== undefined, apiKeyFile, apiSecretFile)})`,
      );
  } else if (r.secrets.apiKey || r.secrets.apiSecret)
    lines.push(
      `the API key and secret were not written anywhere (no --secrets-dir): put them in ${apiKeyFile} and ${apiSecretFile} (mode 0600), or run again with --secrets-dir`,
    );
  if (r.notMapped.length) {
    lines.push(`not mapped (${r.notMapped.length}):`);
    for (const n of r.notMapped)
      lines.push(`${shown}${n.line ? `:${n.line}` : ''}: ${escapeControls(n.setting)}: ${escapeControls(n.why)}`);
  }
  if (lines.length) io.err(lines.join('\n') + '\n');
  return EXIT.OK;
}

/** Who can read the secret files now, and the command that hands them over when the service cannot. */
function ownedBy(owner: string, asRoot: boolean, handed: boolean, ...files: string[]): string {
  const shown = escapeControls(owner);
  if (handed) return `owned by ${shown}, the user punchgate runs as`;
  const chown = `sudo chown ${shown}: ${files.map(escapeControls).join(' ')}`;
  if (asRoot) return `owned by root: there is no user ${shown} yet; once the package has made it: ${chown}`;
  return `owned by you: unless punchgate runs as you, hand them to its user: ${chown}`;
}

export function registerImportConfig(program: Command): void {
  const cmd = program.command('import-config').description("turn another tool's settings into a punchgate config");
  cmd
    .command('frappe-sync')
    .description("the Frappe biometric-attendance-sync-tool's local_config.py -> a config with a Frappe sink")
    .argument('<local_config.py>', "the tool's settings file (read, never run)")
    .option('--output <file>', 'write the config here instead of stdout')
    .option(
      '--secrets-dir <dir>',
      'write the API key and secret here, as frappe-api-key and frappe-api-secret (mode 0600)',
    )
    .option('--site <name>', "punchgate's site name (default: from the ERPNext host)")
    .option('--journal <path>', 'journal.path of the config', '/var/lib/punchgate/journal.db')
    .option('--owner <user>', 'run as root: the user the key and secret files are handed to', SERVICE_USER)
    .action(
      action((file: string, o: ImportConfigOptions) =>
        runImportFrappeSync(file, o, { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }),
      ),
    );
}
