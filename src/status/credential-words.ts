import { odooAccountHint } from '../config/sinks.js';
import type { SinkCredential } from './types.js';

/*
 * The status's words for a sink's credential, of its own kind (status/credential.ts makes the
 * SinkCredential). Without one (a report of an older punchgate), the seed HRMS's words.
 */

/** How a delivery row is headed: "HRMS" (the `hrms:` block), else "Odoo (sink odoo)". */
export function credentialLabel(c: SinkCredential | undefined): string {
  return !c || c.hrmsBlock ? 'HRMS' : `${c.who} (sink ${c.sink})`;
}

/** "Odoo refuses the API key", "sink erp: HRMS refuses the token": who refuses what, naming the sink. */
export function refusesWords(c: SinkCredential | undefined): string {
  if (!c || c.hrmsBlock) return 'HRMS refuses the token';
  return `sink ${c.sink}: ${c.who} refuses the ${c.what}`;
}

/** What to do about it: the files of its own kind, by their config keys. */
export function credentialFix(c: SinkCredential | undefined): string {
  // The file itself, as `punchgate check` names it: "the token file" left the admin to find which.
  const at = c?.files?.length ? ` (${c.files.join(' and ')})` : '';
  if (!c) return 'put a valid token in the token file (it is re-read without a restart)';
  if (c.hrmsBlock)
    return `put a valid token in the file hrms.tokenFile names${at}, or in PUNCHGATE_HRMS_TOKEN (the file is re-read without a restart)`;
  const files = c.kind === 'frappe' ? 'files' : 'file';
  const name = c.kind === 'frappe' ? 'name' : 'names';
  const odoo = c.kind === 'odoo' ? `; ${odooAccountHint(c.sink)}` : '';
  return `put a valid ${c.what} in the ${files} ${c.place} ${name}${at} (re-read without a restart)${odoo}`;
}
