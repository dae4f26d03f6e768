import { em4100Card, type CardNumberStyle } from './rdm6300.js';

/**
 * Binary card packets of 125 kHz / 13.56 MHz reader modules with a UART (the Gwiot 7941E and the
 * RS232 "EM/MF" desk readers sold with it): STX (0x02), a length byte (the whole packet's bytes,
 * STX and ETX included), a card type, the card's serial bytes, a BCC (the XOR of the bytes from
 * the length to the last serial byte) and ETX (0x03). The bytes are binary, so a serial byte may
 * be 0x02, 0x03, 0x0A or 0x0D: the packet is cut by its length byte, never by those.
 * Published examples (the module's manual, reprinted by sellers and by projects that read it):
 * `02 0A 02 2E 00 B6 D7 B5 F2 03` (EM4100, version 0x2E, number 0x00B6D7B5) and
 * `02 0A 02 06 00 8E 6D 5D B0 03` (number 0x008E6D5D, printed 0009334109); a MIFARE card's packet
 * has 4 serial bytes and length 0x09.
 */

/** Card type byte of an EM4100 (125 kHz) card: its 5 serial bytes are what an RDM6300 sends as hex. */
const EM4100 = 0x02;
/** Shortest packet (STX, length, type, one serial byte, BCC, ETX) and the longest we take. */
export const PACKET_MIN_LENGTH = 6;
export const PACKET_MAX_LENGTH = 0x1f;

/**
 * The packet types (the module's manual) that are no printable text: MIFARE 1K, EM4100, MIFARE 4K,
 * HID, T5567 and keyboard data (0xFF). The others (0x20 to 0x51) are printable and could be the
 * start of a line.
 */
const CONTROL_TYPES = new Set([0x01, 0x02, 0x03, 0x10, 0x11, 0xff]);

/**
 * An STX followed by these two bytes opens a binary packet: a length and a card type, both control
 * bytes and neither CR nor LF, which a printed frame never has after its STX (a stray STX before a
 * line end and a line, `STX LF 0004521000`, stays a line).
 */
export function opensCardPacket(length: number, type: number): boolean {
  return length >= PACKET_MIN_LENGTH && length <= PACKET_MAX_LENGTH && CONTROL_TYPES.has(type);
}

/** The first byte after an STX may be a packet's length: wait for the next to know. */
export function mayBePacketLength(b: number): boolean {
  return b >= PACKET_MIN_LENGTH && b <= PACKET_MAX_LENGTH;
}

export type CardPacketRead = { kind: 'card'; card: string } | { kind: 'bad'; reason: string; badChecksum?: true };

const hex = (bytes: readonly number[]) => bytes.map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join('');

/**
 * A MIFARE (or other non-EM) card's serial bytes, in the order the module sends them (its manual:
 * card `6B 3D 12 D6` is sent SN0 to SN3 so, and its Wiegand outputs are those 4 bytes, W34, or
 * their last 3, `3D 12 D6`, W26), as `cardNumber` numbers them: `printed`, the decimal of the UID
 * (10 digits at least: `1799164630`, what a Wiegand 34 reader of the card gives); `wiegand26`, the
 * decimal of the last 3 bytes (`0004002518`, a Wiegand 26 reader's); `hex` or unset, the UID in
 * hex (`6B3D12D6`, as readers that print a UID whole send it, and what punchgate journalled before).
 */
function uidCard(serial: readonly number[], style: CardNumberStyle | undefined): string {
  if (style === undefined || style === 'hex') return hex(serial);
  const bytes = style === 'wiegand26' ? serial.slice(-3) : serial;
  // A 7- or 10-byte UID is beyond a double's exact integers: BigInt keeps every digit.
  return BigInt(`0x${hex(bytes)}`)
    .toString()
    .padStart(10, '0');
}

/**
 * The card of a packet's bytes from its length byte to its BCC (latin1), as `whole` says whether its
 * ETX came where its length put it. EM4100 cards are numbered as RDM6300 frames (`cardNumber`); other
 * cards (MIFARE and the rest) by their serial bytes as `uidCard` says.
 */
export function decodeCardPacket(text: string, whole: boolean, style: CardNumberStyle | undefined): CardPacketRead {
  const bytes = [...Buffer.from(text, 'latin1')];
  const length = bytes[0] ?? 0;
  if (!whole || bytes.length !== length - 2)
    return {
      kind: 'bad',
      reason: `a binary card packet cut short or without its ETX (${bytes.length + 1} of the ${length} bytes its length byte says): a byte lost on the line`,
    };
  const bcc = bytes.slice(0, -1).reduce((x, b) => x ^ b, 0);
  if (bcc !== bytes[bytes.length - 1])
    return {
      kind: 'bad',
      badChecksum: true,
      reason: `binary card packet BCC wrong (sent ${hex(bytes.slice(-1))}, data gives ${hex([bcc])})`,
    };
  const type = bytes[1] as number;
  const serial = bytes.slice(2, -1);
  if (type === EM4100 && serial.length === 5) return { kind: 'card', card: em4100Card(hex(serial), style) };
  if (type === 0xff) return { kind: 'bad', reason: 'a binary packet of keyboard data (type 0xFF), not a card' };
  return { kind: 'card', card: uidCard(serial, style) };
}

/** The packet a 7941E-type module sends for a card (`serial` in hex): for the simulator and tests. */
export function encodeCardPacket(type: number, serial: string, opts: { badChecksum?: boolean } = {}): string {
  const sn = [...Buffer.from(serial, 'hex')];
  const body = [sn.length + 5, type, ...sn];
  let bcc = body.reduce((x, b) => x ^ b, 0);
  if (opts.badChecksum) bcc ^= 0x5a;
  return Buffer.from([0x02, ...body, bcc, 0x03]).toString('latin1');
}
