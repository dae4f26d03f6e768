import type { SourceStateStore } from '../journal/types.js';
import { biotimeNotes } from '../sources/biotime/index.js';
import { readStoredRefusal } from '../sources/password-refusals.js';

/**
 * Whether the terminal (or server) was reached and refuses punchgate's login now: a Dahua or
 * Hikvision terminal with a refusal in its ledger (cleared at the next login that works), a
 * BioTime server with its password note up. Each source recorded it in its own way, and the rows
 * said it apart: a BioTime server that refused the password read `online`, a Dahua terminal
 * `OFFLINE`; neither is true (reached, nothing read), so both rows say LOGIN REFUSED.
 */
export function loginRefused(
  t: { name: string; kind: string },
  state: Pick<SourceStateStore, 'get'>,
  now: number,
): boolean {
  if (t.kind === 'dahua' || t.kind === 'hikvision') return readStoredRefusal(state, t.name) !== undefined;
  if (t.kind === 'biotime') return biotimeNotes(state, t.name, now).some((n) => n.topic === 'password');
  return false;
}
