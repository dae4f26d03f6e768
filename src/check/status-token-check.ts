import { readFileSync } from 'node:fs';
import { errorCode, warn, type CheckResult } from './types.js';

/**
 * `status.authTokenFile` that holds no token: punchgate run then lets nobody in (the page, the
 * /metrics a Prometheus scrapes, the health endpoints), and said so only in its log, at the first
 * visit. check said "all checks passed" meanwhile (a new-user trial). A warning, not a failure:
 * punches are collected and delivered all the same. The token itself is never read out.
 */
export function checkStatusToken(file: string | undefined): CheckResult | undefined {
  if (!file) return undefined;
  let problem: string;
  try {
    if (readFileSync(file, 'utf8').trim() !== '') return undefined;
    problem = 'is empty';
  } catch (e) {
    problem = `cannot be read (${errorCode(e) ?? 'error'})`;
  }
  return warn(
    'status page',
    `status.authTokenFile ${file} ${problem}: punchgate run lets nobody open the status page, /status.json or /metrics until it holds a token`,
    `put a token on one line in it (for example: openssl rand -hex 24 | sudo tee ${file}), readable by the user punchgate runs as (sudo chown root:punchgate ${file}; sudo chmod 0640 ${file}); punchgate reads it again without a restart. Or remove status.authTokenFile (loopback only)`,
  );
}
