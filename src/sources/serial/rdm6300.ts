/**
 * RDM6300/RDM630-type 125 kHz (EM4100) readers: each read is STX (0x02), 10 ASCII hex digits of
 * data, 2 ASCII hex digits of checksum, ETX (0x03), with no line end. The checksum is the XOR of
 * the 5 data bytes. Of the data, the first byte is the version (customer) byte and the last 4 are
 * the card's number: the number printed on EM4100 tags is their decimal, 10 digits with leading
 * zeros (e.g. frame 4500C5D1E9B8: version 0x45, number 0x00C5D1E9, printed 0012964329). Sources: the RDM630 datasheet (Seeed
 * Studio) and the EM-18 reader's (same frame, "number on card" worked example).
 *
 * `cardNumber` chooses the number punchgate journals: `printed` (the default, the number on the
 * tag and in most HR systems' card fields), `hex` (all 10 hex digits as sent, version byte
 * included, for systems that enrolled cards that way) or `wiegand26` (the decimal of the last 3
 * bytes, 10 digits: what a Wiegand 26 reader of the same tag sends through a Wiegand-to-RS232
 * converter, whose manual gives data 1E256 as "0000123478", for sites whose cards were enrolled
 * on Wiegand readers).
 */

export type CardNumberStyle = 'printed' | 'hex' | 'wiegand26';

export type Rdm6300Read = { kind: 'card'; card: string } | { kind: 'bad-checksum'; reason: string };

/** Characters between STX and ETX: 10 of data, 2 of checksum. */
export const RDM6300_TEXT_LENGTH = 12;
const FRAME = /^[0-9A-Fa-f]{12}$/;

/** The frame's text between STX and ETX, when it has the RDM6300 shape; null when it has not. */
export function decodeRdm6300(text: string, style: CardNumberStyle | undefined): Rdm6300Read | null {
  if (!FRAME.test(text)) return null;
  const bytes = [0, 2, 4, 6, 8, 10].map((i) => parseInt(text.slice(i, i + 2), 16));
  const sum = bytes.slice(0, 5).reduce((x, b) => x ^ b, 0);
  if (sum !== bytes[5])
    return {
      kind: 'bad-checksum',
      reason: `RDM6300 checksum wrong (sent ${text.slice(10).toUpperCase()}, data gives ${sum.toString(16).toUpperCase().padStart(2, '0')})`,
    };
  return { kind: 'card', card: em4100Card(text.slice(0, 10), style) };
}

/** An EM4100 tag's 5 data bytes (10 hex digits: version byte and number) as `style` numbers it (unset: printed). */
export function em4100Card(data: string, style: CardNumberStyle | undefined): string {
  const hex = data.toUpperCase();
  if (style === 'hex') return hex;
  const number = style === 'wiegand26' ? hex.slice(4) : hex.slice(2);
  return String(parseInt(number, 16)).padStart(10, '0');
}

/** The frame an RDM6300 sends for `data` (10 hex digits): for the simulator and tests. */
export function encodeRdm6300(data: string, opts: { badChecksum?: boolean } = {}): string {
  const hex = data.toUpperCase();
  let sum = 0;
  for (let i = 0; i < 10; i += 2) sum ^= parseInt(hex.slice(i, i + 2), 16);
  if (opts.badChecksum) sum ^= 0x5a;
  return `\x02${hex}${sum.toString(16).toUpperCase().padStart(2, '0')}\x03`;
}
