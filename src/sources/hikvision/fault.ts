import type { HikvisionTerminalConfig } from '../../config/terminals.js';
import { addressShown } from '../../config/web-address.js';
import { cannotAnswerFix, staleNonceFix } from '../digest-login.js';
import type { TerminalFault } from '../poll-outcome.js';
import { EVENTS_PATH, SEARCH_FAULTS } from './client.js';
import {
  HikApiError,
  HikAuthError,
  HikChallengeError,
  HikConnectionError,
  HikSetupError,
  HikStaleNonceError,
  HikTlsError,
} from './errors.js';

/**
 * What went wrong reaching a Hikvision terminal, for a site admin: the same words in `punchgate
 * check` and the status. `key` names the terminal in the config (`terminals[2]`). The device's own
 * answer (an ISAPI status, an HTTP code) stays in the cause only where it is the news.
 */
export function describeHikFault(e: unknown, cfg: HikvisionTerminalConfig, key: string): TerminalFault {
  if (e instanceof HikSetupError)
    return {
      cause: e.message,
      fix: `set ${key}.passwordFile (readable by punchgate) or the environment variable it names`,
    };
  if (e instanceof HikStaleNonceError)
    return {
      cause: e.message,
      fix: staleNonceFix(`put the right password in ${key}.passwordFile (or the environment variable)`),
    };
  if (e instanceof HikAuthError) {
    if (e.locked)
      return {
        cause: e.message,
        fix: `wait until the device unlocks the account, then put the right password in ${key}.passwordFile; punchgate tries a refused password only every few minutes so as not to lock it again`,
      };
    return {
      cause: e.message,
      fix: `put the password of the device account "${cfg.username}" in ${key}.passwordFile (or the environment variable); the account needs the rights to read events and the device's configuration (see docs/terminals-hikvision.md); each wrong try counts towards the device's lock`,
    };
  }
  // The address leads, not the name: the status and check put the terminal's name before it already.
  if (e instanceof HikChallengeError)
    return {
      cause: e.message,
      fix: cannotAnswerFix('Configuration > System > Security > Web Authentication', `${key}.url`),
    };
  if (e instanceof HikTlsError)
    return {
      cause: e.message,
      fix: e.fingerprint
        ? `if the device's certificate was replaced on purpose (a reset, a new certificate), check its fingerprint at the device and set ${key}.tlsFingerprint to "sha256:${e.fingerprint}"`
        : `set ${key}.tlsFingerprint to the device certificate's SHA-256 fingerprint (punchgate check shows it), or ${key}.caFile to the CA that signed it`,
    };
  if (e instanceof HikConnectionError)
    return {
      cause: e.message,
      fix: `check the power and cable of the terminal and ${key}.url (its address and http/https)`,
    };
  // A search the terminal does not end (or a list larger than any terminal holds): it is the
  // terminal, answering wrongly, not another device.
  if (e instanceof HikApiError && (SEARCH_FAULTS.has(e.subStatusCode ?? '') || e.subStatusCode === 'tooMany'))
    return { cause: e.message, fix: 'restart the terminal, and update its firmware if it goes on' };
  // A terminal whose firmware has no event search (DS-K1T502s and other models that only post
  // their events): its identity and clock were read, so it is the terminal, not another device.
  if (lacksEventSearch(e)) return noEventSearchFault(cfg, key, e.message);
  if (e instanceof HikApiError)
    return {
      cause: `${addressShown(cfg.url)} answered, but not as a Hikvision access-control terminal does: ${e.message}`,
      fix: `check that ${key}.url points at the terminal (not a camera or an NVR) and that its ISAPI is enabled`,
    };
  return {
    cause: `${addressShown(cfg.url)}: ${e instanceof Error ? e.message : String(e)}`,
    fix: `check ${key}.url and the terminal`,
  };
}

/** The poll's event search answered that the device does not know it (firmware that only posts its events). */
export function lacksEventSearch(e: unknown): e is HikApiError {
  return e instanceof HikApiError && e.unsupported && e.message.startsWith(EVENTS_PATH.split('?')[0]!);
}

/** The words for a terminal without an event search (`answer`: what it answered the search). */
export function noEventSearchFault(cfg: HikvisionTerminalConfig, key: string, answer: string): TerminalFault {
  return cfg.listen
    ? {
        cause: `${addressShown(cfg.url)} does not search its event log (${answer}): its punches come by HTTP Listening alone, and no poll reads what a missed post held`,
        fix: `keep HTTP Listening set on the terminal (punchgate terminals listen ${cfg.name}) and watch its last post in the status; a newer firmware may search its log`,
      }
    : {
        cause: `${addressShown(cfg.url)} does not search its event log (${answer}): a terminal that only posts its events`,
        fix: `set ${key}.listen: true (and adms.listen), then run punchgate terminals listen ${cfg.name} (docs/terminals-hikvision.md, HTTP Listening)`,
      };
}
