import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { isSecretKey } from './found.js';
import type { ConfigProblem } from './issues.js';

/**
 * A secret pasted where the config wants the name of the file that holds it (`tokenFile: eyJhbGci...`,
 * `apiKeyFile: key:secret`): the commonest mistake of a first config. Taken as a file name, the
 * secret went into every message about that file (check, the log, the status, the page, the journal
 * and the kept copy of the config), so such a config is refused at load, without repeating the value.
 *
 * Only a value that names no file is judged, so an existing file is never refused for its name.
 */
export function pastedSecretProblems(raw: unknown, baseDir: string): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const walk = (v: unknown, at: PropertyKey[]): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...at, i]));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        const stem = k.endsWith('File') ? k.slice(0, -'File'.length) : undefined;
        if (stem !== undefined && isSecretKey(stem) && typeof x === 'string') {
          if (looksLikeSecret(x) && !existsSync(resolve(baseDir, x.trim()))) out.push(problem([...at, k], stem));
        } else walk(x, [...at, k]);
      }
  };
  walk(raw, []);
  return out;
}

function problem(path: PropertyKey[], stem: string): ConfigProblem {
  const what = /token/i.test(stem) ? 'token' : /password/i.test(stem) ? 'password' : 'secret';
  return {
    path,
    message:
      `expected the name of a file that holds the ${what}, found text that names no file and looks like ` +
      `the ${what} itself (not shown here): put the ${what} on one line in a file of its own ` +
      `(e.g. /etc/punchgate/${what}, chmod 0640, chown root:punchgate) and write that file's name here`,
  };
}

/**
 * Whether a text reads as a secret rather than a file name. File names are words, dashes and dots
 * (`token`, `frappe-api-secret`, `hr-token-2026.txt`, `/etc/punchgate/token`); tokens and keys are
 * long runs of mixed case and digits, hexadecimal, base64 or JWTs, or `key:secret` pairs.
 */
export function looksLikeSecret(value: string): boolean {
  const v = value.trim();
  if (v.length < 8) return false;
  if (/^(\/|\.\.?\/|~)/.test(v)) return false; // a path, written as one
  if (/\s/.test(v) || /[:=+]/.test(v)) return true; // "Bearer x", "key:secret", base64
  if (/^eyJ[\w-]+\.[\w-]+\./.test(v)) return true; // a JWT
  if (v.includes('/')) return false; // secrets/token: a folder and a file
  if (/\.[A-Za-z][A-Za-z0-9]{0,4}$/.test(v)) return false; // token.txt, key.pem
  const digits = (v.match(/\d/g) ?? []).length;
  const upper = /[A-Z]/.test(v);
  const lower = /[a-z]/.test(v);
  if (upper && lower && digits > 0) return true;
  if (v.length >= 16 && /^[0-9a-f]+$/i.test(v) && digits > 0) return true;
  return v.length >= 16 && digits / v.length >= 0.25 && (upper || lower);
}
