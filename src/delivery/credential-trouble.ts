import { NO_TOKEN } from './health.js';

/**
 * Why a sink's delivery waits on its credential, read from its delivery state: 'none' (no
 * credential could be read: the file is missing, empty or unreadable, and nothing was sent) or
 * 'refused' (the server answered and refused it); undefined when it does not wait on it. Both
 * leave auth 'failed'; every surface (status, page, /readyz, /metrics) tells them apart here,
 * so none says "the HRMS refuses the token" for a request that was never sent (a new-user trial).
 */
export type CredentialTrouble = 'none' | 'refused';

export function credentialTrouble(d: { auth: string; lastError: string | null }): CredentialTrouble | undefined {
  if (d.auth !== 'failed') return undefined;
  return d.lastError?.startsWith(NO_TOKEN) ? 'none' : 'refused';
}
