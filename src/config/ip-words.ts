import { isIP } from 'node:net';

/**
 * An IPv4 address written with zero-padded numbers, as a terminal's own menu shows it
 * (`192.168.001.020`), in its plain form (`192.168.1.20`), else undefined. Both the system's
 * resolver and the URL parser read a number with a leading zero as octal (020 as 16: another
 * device, without a word); every admin who writes it means the decimal the menu shows. Read so,
 * an address that worked by chance before (`192.168.001.201`, where 001 is 1 either way) keeps
 * working after an upgrade, and one that reached another device reaches the terminal.
 */
export function zeroPaddedIPv4(host: string): string | undefined {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  if (!parts.some((p) => p.length > 1 && p.startsWith('0'))) return undefined;
  return parts.map((p) => String(Number(p))).join('.');
}

/**
 * An address of digits and dots that is no IPv4 address of four numbers from 0 to 255, in words,
 * else undefined. Neither the system's resolver nor the URL parser refuses all of them: both read
 * `192.168.1` as 192.168.0.1, so punchgate would reach another device without a word;
 * `192.168.1.256` was said only at the first poll, as a host name not found (a new-user trial).
 * Zero-padded numbers are read as the menu means them (zeroPaddedIPv4), not refused.
 * `written` is the text shown (the host, or the whole URL it is part of).
 */
export function notFourNumbers(host: string, written = host): string | undefined {
  if (!/^[\d.]+$/.test(host) || isIP(host) === 4 || zeroPaddedIPv4(host) !== undefined) return undefined;
  return `must be an IP address of four numbers from 0 to 255 (e.g. 192.168.1.201), or a host name, got the text "${written}"`;
}
