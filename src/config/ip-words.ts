import { isIP } from 'node:net';

/**
 * An address of digits and dots that is not four numbers of 0-255 written plainly, in words, else
 * undefined. Neither the system's resolver nor the URL parser refuses all of them: both read
 * `192.168.001.020` (as a terminal's own menu shows its address) as octal, 192.168.1.16, and
 * `192.168.1` as 192.168.0.1, so punchgate would reach another device without a word;
 * `192.168.1.256` was said only at the first poll, as a host name not found (a new-user trial).
 * `written` is the text shown (the host, or the whole URL it is part of).
 */
export function notFourNumbers(host: string, written = host): string | undefined {
  if (!/^[\d.]+$/.test(host) || isIP(host) === 4) return undefined;
  const parts = host.split('.');
  const zeros = parts.length === 4 && parts.every((p) => p !== '' && Number(p) <= 255);
  const plain = written.replace(host, parts.map((p) => String(Number(p))).join('.'));
  return zeros
    ? `must be written without leading zeros (a number with a leading zero is read as octal: 020 as 16, another device), got the text "${written}": write ${plain}`
    : `must be an IP address of four numbers from 0 to 255 (e.g. 192.168.1.201), or a host name, got the text "${written}"`;
}
