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

/**
 * A keypad's 8-bit burst: the key (0-9, 10 for `*`, 11 for `#`) in the low nibble and its
 * complement in the high one. The byte checks itself, so it is a key wherever a frame begins.
 */
export function isBurstKeyByte(b: number): boolean {
  const low = b & 0x0f;
  return low < KEYS.length && b >> 4 === (~low & 0x0f);
}

/** The key a short frame is (shown as printable text), or null when it is not one. */
export function keypadKey(text: string, maxBytes: number): string | null {
  if (text.length === 0 || text.length > maxBytes) return null;
  if (text.length === 1) {
    const b = text.charCodeAt(0);
    // Printable ones too (0x5A "Z" is `*`): a 4-bit converter sends only 0-9, A and B.
    if (b <= 0xff && isBurstKeyByte(b)) return KEYS[b & 0x0f] as string;
  }
  return PRINTABLE.test(text) ? printable(text) : null;
}
