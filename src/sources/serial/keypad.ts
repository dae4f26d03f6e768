import { printable } from '../../util/terminal-text.js';

/**
 * Keypad keys as Wiegand-to-RS232 converters pass them on (one bare byte, no line end). From a
 * converter's manual: a 4-bit key goes out as the ASCII of its hex digit ("receives a 4bit 3, then
 * it sends ASCII 33"; `*` and `#`, keys 10 and 11, as "A" and "B"), an 8-bit key "as it is". Keypads
 * that send 8-bit bursts put the key in the low nibble and its complement in the high one (key 1 is
 * 0xE1, `*` 0x5A, `#` 0x4B: a byte above 0x7e for most digits), so such a byte is a key too, never
 * line noise. Anything else that short and printable (a converter sending "*" or "#") is a key.
 */

/** A keypad key as converters send it: an ASCII digit, letter or sign. */
const PRINTABLE = /^[\x21-\x7e]+$/;
const KEYS = '0123456789*#';

/** The key a short frame is (shown as printable text), or null when it is not one. */
export function keypadKey(text: string, maxBytes: number): string | null {
  if (text.length === 0 || text.length > maxBytes) return null;
  if (text.length === 1) {
    const b = text.charCodeAt(0);
    const low = b & 0x0f;
    if (b > 0x7e && b <= 0xff && b >> 4 === (~low & 0x0f) && low < KEYS.length) return KEYS[low] as string;
  }
  return PRINTABLE.test(text) ? printable(text) : null;
}
