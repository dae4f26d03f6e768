import { isSecretKey } from './found.js';
import { modeReadableByAll } from '../util/open-mode.js';
import type { Config } from './schema.js';

/**
 * Every file of a loaded config that holds a secret, with its key (`hrms.tokenFile`,
 * `terminals[1].passwordFile`): a key ending in File whose stem names a secret (token, password,
 * API key and secret, proxy credentials), found by walking the config, so a secret file added to
 * the schema is one too. The config file itself holds secrets (comm keys, a proxy's password).
 */
export function secretFilesOf(configFile: string, config: Config): { key: string; file: string }[] {
  const out: { key: string; file: string }[] = [];
  let holdsSecret = false;
  const walk = (v: unknown, at: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}[${i}]`));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        const key = at ? `${at}.${k}` : k;
        if (typeof x === 'string' && k.endsWith('File') && isSecretKey(k.slice(0, -'File'.length)))
          out.push({ key, file: x });
        else if (isSecretKey(k) && x !== undefined && x !== null && x !== '' && x !== 0) holdsSecret = true;
        else walk(x, key);
      }
  };
  walk(config, '');
  // The config file itself only when it holds a secret value (a comm key other than 0): one with
  // its secrets in files beside it (as the docs and the demo write it) may be read by all.
  return holdsSecret ? [{ key: 'the config file', file: configFile }, ...out] : out;
}

/**
 * Each secret file of the config that every user may read, with what to say (the key, the file
 * and its mode) and the fix. Said, never refused: an admin must not be locked out by a mode.
 */
export function secretFilesReadableByAll(configFile: string, config: Config): { detail: string; fix: string }[] {
  const seen = new Set<string>();
  return secretFilesOf(configFile, config).flatMap(({ key, file }) => {
    const mode = seen.has(file) ? undefined : modeReadableByAll(file);
    seen.add(file);
    if (mode === undefined) return [];
    return [
      {
        detail: `${key === 'the config file' ? key : key + ':'} ${file} is mode ${mode}, readable by every user of this box`,
        fix: `chmod 0640 ${file}; chown root:punchgate ${file}`,
      },
    ];
  });
}
