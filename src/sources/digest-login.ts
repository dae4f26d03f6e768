/**
 * The words both Digest users (Dahua, Hikvision) say about a login that went wrong without the
 * device refusing the password: a login punchgate cannot answer (nothing was sent), and a device
 * that asks again with a new nonce at every try (a password was sent, yet the device never said
 * it was wrong). Each source keeps its own error classes; the words are the same for both.
 */
import { WHY_IT_WAITS } from './password-refusals.js';

/** The logins a 401 offers, in short: "Basic", "Digest algorithm=SHA-512-256" (the device's words, capped). */
export function offeredLogins(header: string | string[] | undefined): string {
  const all = (Array.isArray(header) ? header : header ? [header] : []).map((h) => {
    const scheme = /^\s*([A-Za-z0-9_-]+)/.exec(h)?.[1] ?? '';
    const alg = /algorithm\s*=\s*"?([A-Za-z0-9_-]+)/i.exec(h)?.[1];
    // qop auth-int only is as unanswerable as an unknown algorithm: named, or the words say just "Digest".
    const qop = /qop\s*=\s*"([^"]*)"|qop\s*=\s*([A-Za-z0-9_,-]+)/i.exec(h);
    const qops = (qop?.[1] ?? qop?.[2])?.replace(/\s+/g, '');
    return [scheme, alg && `algorithm=${alg}`, qops && !qops.split(',').includes('auth') && `qop=${qops}`]
      .filter(Boolean)
      .join(' ');
  });
  const said = all.filter(Boolean).join(', ').slice(0, 80);
  return said === '' ? 'no login named' : said;
}

/** `peer` asks for a login punchgate cannot answer: the cause (no password was sent). */
export const cannotAnswerWords = (peer: string, offered: string): string =>
  `${peer} asks for a login punchgate cannot answer (${offered}; punchgate answers Digest with MD5 or SHA-256)`;

/** The fix of a login punchgate cannot answer; `menu` is where the setting is on the terminal's web page. */
export const cannotAnswerFix = (menu: string, where: string): string =>
  `set the terminal's web authentication to digest (its web page: ${menu}), and check that ${where} points at the terminal; no password was sent`;

/**
 * A device that answered every try with a new nonce marked stale: it never said the password was
 * wrong, yet no try got in. Its clock (nonces that expire at once) or its session table (full)
 * is the likelier cause; the password may be right. A password was sent each time, so the
 * refusal wait still applies (a device may count those tries towards its lock). No ": " in the
 * cause: a status line is split into cause and fix at the first one.
 */
export const staleNonceCause = (terminal: string): string =>
  `${terminal} kept asking again with a new nonce at every login try and never said the password was wrong (its clock or its session table; the password may be right)`;

/** The fix of it: `password` says where the right password goes and when the next try is. */
export const staleNonceFix = (password: string): string =>
  `${STALE_NONCE_FIRST}; if its log shows failed logins for the account, ${password}; a password was sent at each try, and ${WHY_IT_WAITS}`;

/** What to look at first when a device keeps asking with a new nonce. */
export const STALE_NONCE_FIRST = "check the terminal's clock (its time settings, NTP) and restart it if it goes on";
