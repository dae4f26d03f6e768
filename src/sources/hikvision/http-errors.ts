/** Words for what went wrong in an exchange with a Hikvision device, and the answer it read. */
import { netErrorText, routeWords, undiciWords } from '../net-error-words.js';
import { HikApiError, HikAuthError, HikConnectionError, HikSetupError } from './errors.js';

/** A device's answer, read whole. */
export interface HikResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /**
   * Takes the secrets the client holds (the password it sent) out of the device's words before
   * they become a message (HeldSecrets#scrub): a device may quote back what it was sent.
   */
  scrub?: (text: string) => string;
}

/**
 * Where the device's lock rule shows in a 401 (ISAPI userCheck, XML or JSON): `lockStatus`
 * lock/unlock, `unlockTime` seconds, `retryLoginTime` tries left.
 */
export function lockInfo(text: string): { locked: boolean; unlockSeconds?: number; triesLeft?: number } {
  const field = (name: string) => new RegExp(`${name}["'>:\\s]*"?([A-Za-z0-9]+)`, 'i').exec(text)?.[1];
  const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined);
  return {
    locked: (field('lockStatus') ?? '').toLowerCase() === 'lock',
    unlockSeconds: num(field('unlockTime')),
    triesLeft: num(field('retryLoginTime')),
  };
}

/** What Node and undici say about a failed connection, in words. */
export function describeNetError(e: unknown, peer: string, timeoutMs: number): Error {
  if (e instanceof HikApiError || e instanceof HikAuthError || e instanceof HikSetupError) return e;
  if (e instanceof HikConnectionError) return e; // already in words (an answer too large...)
  const name = (e as { name?: string }).name;
  if (name === 'HikTlsError' || name === 'AbortError') return e as Error;
  const { text, code } = netErrorText(e, peer, {
    ECONNREFUSED: `${peer} refused the connection (nothing listens there: check the url)`,
    ...routeWords(peer),
    ...undiciWords(peer, timeoutMs),
    EPROTO: `${peer} does not speak TLS there (is the url http:// rather than https://?)`,
    ERR_SSL_WRONG_VERSION_NUMBER: `${peer} does not speak TLS there (is the url http:// rather than https://?)`,
  });
  return new HikConnectionError(text, code);
}

/**
 * The error of a non-2xx answer: the ISAPI ResponseStatus when the body has one (JSON or XML:
 * statusCode, statusString, subStatusCode, errorMsg), else the HTTP status.
 */
export function apiError(res: HikResponse, path: string): HikApiError {
  const field = (name: string) =>
    new RegExp(`"?${name}"?\\s*[:>]\\s*"?([^"<,}]*)`, 'i').exec(res.text)?.[1]?.trim() || undefined;
  const statusString = field('statusString');
  const sub = field('subStatusCode');
  const msg = field('errorMsg');
  const what = [statusString, sub, msg && msg !== sub ? msg : undefined].filter(Boolean).join(', ');
  const scrub = res.scrub ?? ((t: string) => t);
  return new HikApiError(
    `${path.split('?')[0]}: HTTP ${res.status}${what ? ` (${scrub(what)})` : ''}`.slice(0, 300),
    res.status,
    sub,
  );
}
