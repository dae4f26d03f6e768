import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { EXIT, ExitError } from '../util/exit-codes.js';

/** The settings naming a file that building a sender reads (its CA, its proxy's credentials). */
export type SettingFileKey = 'caFile' | 'proxyCredentialsFile';

/**
 * A file named by a sender's setting that cannot be used: which key, which file, and why (`code`:
 * ENOENT, EACCES..., or 'FORMAT' for a file that reads but holds the wrong thing). It carries them
 * so that the daemon's status and `punchgate check` can name the key that failed and its fix
 * (sinks/build-problem.ts), instead of reading them back out of a message.
 */
export class SettingFileError extends ExitError {
  constructor(
    readonly key: SettingFileKey,
    readonly file: string,
    readonly code: string,
    /** What is wrong with the file, without the key ("cannot read /x (ENOENT)"). */
    readonly problem: string,
  ) {
    // The message keeps the words the employee commands have always printed.
    super(`hrms.${key}: ${problem}`, EXIT.CONFIG);
    this.name = 'SettingFileError';
  }
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The PEM text of a private CA (`caFile`). Node takes any text as a CA without a word and then
 * trusts nothing, so a file with no certificate in it is refused here, where the key is known.
 */
export function readCaFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new SettingFileError('caFile', file, code, `cannot read ${file} (${code})`);
  }
  const certs = text.match(PEM_CERT) ?? [];
  const readable = certs.filter((pem) => {
    try {
      new X509Certificate(pem);
      return true;
    } catch {
      return false;
    }
  });
  if (readable.length === 0)
    throw new SettingFileError('caFile', file, 'FORMAT', `${file} holds no PEM certificate that can be read`);
  return text;
}
