import type { DahuaTerminalConfig } from '../../config/terminals.js';
import type { TerminalFault } from '../poll-outcome.js';
import { cannotAnswerFix, staleNonceFix } from '../digest-login.js';
import {
  DahuaApiError,
  DahuaAuthError,
  DahuaChallengeError,
  DahuaConnectionError,
  DahuaSetupError,
  DahuaStaleNonceError,
} from './errors.js';

/** The device's address as the admin wrote it: `http://10.0.0.7:80`. */
export const dahuaUrl = (cfg: DahuaTerminalConfig) =>
  `${cfg.tls ? 'https' : 'http'}://${cfg.host}:${cfg.port ?? (cfg.tls ? 443 : 80)}`;

/**
 * What went wrong reaching a Dahua terminal, for a site admin: the same words in `punchgate
 * check` and the status. `key` names the terminal in the config (`terminals[2]`).
 */
export function describeDahuaFault(e: unknown, cfg: DahuaTerminalConfig, key: string): TerminalFault {
  if (e instanceof DahuaSetupError)
    return {
      cause: e.message,
      fix: `set ${key}.passwordFile (readable by punchgate) or the environment variable it names`,
    };
  if (e instanceof DahuaStaleNonceError)
    return {
      cause: e.message,
      fix: staleNonceFix(`put the right password in ${key}.passwordFile (or the environment variable)`),
    };
  if (e instanceof DahuaAuthError)
    return {
      cause: e.message,
      fix: e.locked
        ? `wait until the device unlocks the account (30 min on most firmware), then put the right password in ${key}.passwordFile`
        : `put the password of the device account "${cfg.username}" in ${key}.passwordFile (or the environment variable); each wrong try counts towards the device's lock`,
    };
  // The address leads, not the name: the status and check put the terminal's name before it already.
  if (e instanceof DahuaChallengeError)
    return {
      cause: e.message,
      fix: cannotAnswerFix('Settings > Network > Web Service, or System > Safety', `${key}.host`),
    };
  if (e instanceof DahuaConnectionError) {
    if (e.code === 'TLS_PIN')
      return {
        cause: e.message,
        fix: `if the device's certificate was replaced on purpose, check its fingerprint at the device and set ${key}.tlsFingerprint to it`,
      };
    if (e.code === 'ANSWER_TOO_LARGE' || e.code === 'DEADLINE')
      return {
        cause: e.message,
        fix: 'restart the terminal, and update its firmware if it goes on; what was read before is kept',
      };
    return { cause: e.message, fix: `check the power and cable of the terminal and ${key}.host, port and tls` };
  }
  if (e instanceof DahuaApiError)
    return {
      cause: `${dahuaUrl(cfg)} answered, but not as a Dahua access terminal does: ${e.message}`,
      fix: `check that ${key}.host points at the terminal (not a camera or an NVR) and that its account may read records`,
    };
  return {
    cause: `${dahuaUrl(cfg)}: ${e instanceof Error ? e.message : String(e)}`,
    fix: `check ${key}.host and the terminal`,
  };
}
