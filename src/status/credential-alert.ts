import { credentialTrouble } from '../delivery/credential-trouble.js';
import { ALERT, type Alert } from './alert-words.js';
import type { SinkCredential } from './types.js';

/**
 * The default sink's credential alert, or undefined when delivery does not wait on it: the one
 * wording the status, the page and /readyz share. No usable credential (nothing was sent) is not
 * a refusal: /readyz said "the HRMS refuses the token" for an empty token file (a new-user trial).
 * `since`: authFailedSince (epoch ms); `credential`: the default sink's words.
 */
export function defaultCredentialAlert(
  d: { auth: string; lastError: string | null },
  since: number | null,
  credential?: SinkCredential,
): Alert | undefined {
  const trouble = credentialTrouble(d);
  if (trouble === 'none') return ALERT.noToken(d.lastError ?? '', since);
  if (trouble === 'refused') return ALERT.tokenRefused(since, credential);
  return undefined;
}
