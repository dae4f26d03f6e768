/**
 * The card a reader printed, as punchgate journals it.
 *
 * Most readers print a card as letters and digits, journalled as printed. 125 kHz ID readers
 * have output formats that hold a comma (a reader maker's datasheet, zgznk.com "09A-EMID-6H10D",
 * for the card 01026F6C3A):
 * - a decimal in groups of three: "004,335,823,930" (10H to 12D), "07,302,202" (6H to 8D): one
 *   number, journalled without its commas ("004335823930", "07302202");
 * - a facility code and a card number: "111,27706" (2H + 4H: the Wiegand 26 form, which EM tags
 *   also print beside their 10 digits) and "00623,27706" (4H + 4H): the number they make,
 *   facility x 65536 + card, journalled as 10 digits ("0007302202", "0040856634"). That is the
 *   number a Wiegand-to-RS232 converter and `cardNumber: wiegand26` give the same tag, and the
 *   10 digits printed on a tag whose fourth byte is 0, so one card map serves every reader.
 *   A comma never reaches a code: `punches --code` takes `1042,1043` as two codes, and a card
 *   map's cell would need quotes.
 * 13.56 MHz reader sketches print a UID byte by byte, two hex digits each with a blank or a colon
 * between them (the MFRC522 library's examples: "Card UID: 04 A1 B2 C3"; others "04:A1:B2:C3").
 * A UID is 4, 7 or 10 bytes (ISO 14443 single, double, triple size): journalled as its digits
 * ("04A1B2C3"), what readers that print it whole send.
 */

const CARD_CHARS = /^[0-9A-Za-z]{1,32}$/;
const DIGIT_GROUPS = /^\d{1,3}(?:,\d{3})+$/;
const FACILITY_AND_CARD = /^(\d{3}|\d{5}),(\d{5})$/;
const UID_BYTES = /^[0-9A-Fa-f]{2}(?:( |:)[0-9A-Fa-f]{2})(?:\1[0-9A-Fa-f]{2}){2}(?:(?:\1[0-9A-Fa-f]{2}){3}){0,2}$/;

/** What the default pattern's `code` group takes for `cardCode` to judge (letters and digits, digits and commas, hex bytes). */
export const CARD_CODE_EXPRESSION =
  '[0-9A-Za-z]{1,32}|\\d{1,5}(?:,\\d{3,5})+|[0-9A-Fa-f]{2}(?:[ :][0-9A-Fa-f]{2}){3,9}';

/** The card as journalled, or null when `text` is no card number in any of these forms. */
export function cardCode(text: string): string | null {
  if (CARD_CHARS.test(text)) return text;
  if (UID_BYTES.test(text)) return text.replace(/[ :]/g, '');
  const pair = FACILITY_AND_CARD.exec(text);
  if (pair) {
    const facility = Number(pair[1]);
    const card = Number(pair[2]);
    // Three digits hold one byte (2H), five hold two (4H); a card number is two bytes.
    if (facility > (pair[1]!.length === 3 ? 0xff : 0xffff) || card > 0xffff) return null;
    return String(facility * 0x10000 + card).padStart(10, '0');
  }
  if (!DIGIT_GROUPS.test(text)) return null;
  const digits = text.replace(/,/g, '');
  return digits.length <= 32 ? digits : null;
}

/**
 * A magnetic-stripe badge reader sends a badge's track 2 between its sentinels: `;`, the digits,
 * `?` (ID TECH Omni and MagTek RS-232 readers, their manuals' host message formats), with a CR
 * and, set so, STX/ETX around it. A badge's track holds its number alone; a track with field
 * separators (`=`, a bank card's) or a bad read (`;E?`) is no badge: null.
 */
const TRACK_TWO = /^;(\d{1,32})\?$/;

/** The badge number of a track 2 read, or null when `text` is none. */
export function trackTwoDigits(text: string): string | null {
  return TRACK_TWO.exec(text)?.[1] ?? null;
}
