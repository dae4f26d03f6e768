/**
 * Names in a terminal's own character set (a terminal's `encoding:`): terminals sold in China,
 * Taiwan, the Middle East or Latin America keep user names in a legacy code page (GBK, Big5,
 * Windows-1256, Windows-1252...), not UTF-8. Reading uses Node's TextDecoder (full ICU); Node has
 * no encoder for those code pages, so writing uses the decoder's own table turned round, and a
 * name is written only if its bytes decode back to the very same text: a name the character set
 * cannot hold is refused, never written as look-alikes or question marks.
 */

/** The WHATWG name of a character set Node can read (`cp1252` -> `windows-1252`), or null. */
export function canonicalEncoding(label: string): string | null {
  try {
    const enc = new TextDecoder(label.trim()).encoding;
    // UTF-16 names would need a different field layout; `replacement` reads everything as U+FFFD.
    return enc === 'replacement' || enc.startsWith('utf-16') ? null : enc;
  } catch {
    return null;
  }
}

/**
 * Why a label Node's TextDecoder knows is still no terminal's `encoding` (UTF-16, `replacement`),
 * or null when it is usable or unknown: the config error then says it is a character set, but the
 * wrong kind, rather than "must be a character set" for one that plainly is.
 */
export function unusableEncoding(label: string): string | null {
  try {
    const enc = new TextDecoder(label.trim()).encoding;
    if (enc.startsWith('utf-16')) return `${enc} keeps two bytes per character, and no terminal keeps names so`;
    if (enc === 'replacement') return `"${label.trim()}" is a label Node reads as nothing but U+FFFD`;
    return null;
  } catch {
    return null;
  }
}

export const DEFAULT_ENCODING = 'utf-8';

/** A name field read: its text, or (`valid: false`) bytes that are no text in the character set. */
export interface DecodedName {
  text: string;
  /** false: the bytes are not valid in the character set; `text` then shows U+FFFD where they were. */
  valid: boolean;
}

export class NameCodec {
  readonly encoding: string;
  private readonly strict: InstanceType<typeof TextDecoder>;
  private readonly lossy: InstanceType<typeof TextDecoder>;
  /** Character -> bytes, built on the first write in a legacy character set. */
  private table: Map<string, Buffer> | null = null;

  constructor(encoding: string = DEFAULT_ENCODING) {
    const enc = canonicalEncoding(encoding);
    if (enc === null) throw new RangeError(`"${encoding}" is no character set this Node can read`);
    this.encoding = enc;
    this.strict = new TextDecoder(enc, { fatal: true });
    this.lossy = new TextDecoder(enc);
  }

  get isUtf8(): boolean {
    return this.encoding === 'utf-8';
  }

  decode(bytes: Uint8Array): DecodedName {
    try {
      return { text: this.strict.decode(bytes), valid: true };
    } catch {
      return { text: this.lossy.decode(bytes), valid: false };
    }
  }

  /** The bytes of `text` in the character set, or null when it cannot hold every character of it. */
  encode(text: string): Buffer | null {
    if (this.isUtf8) return Buffer.from(text, 'utf8');
    const table = (this.table ??= this.buildTable());
    const parts: Buffer[] = [];
    for (const ch of text) {
      const b = table.get(ch);
      if (!b) return null;
      parts.push(b);
    }
    const out = Buffer.concat(parts);
    // Stateful or context-dependent character sets: only bytes that read back as the same text.
    return this.decode(out).text === text ? out : null;
  }

  /** The characters of `text` this character set cannot hold (for messages), at most `max`. */
  unencodable(text: string, max = 5): string[] {
    const out: string[] = [];
    for (const ch of new Set(text)) {
      if (out.length >= max) break;
      if (this.encode(ch) === null) out.push(ch);
    }
    return out;
  }

  /**
   * Every character reachable in one or two bytes (all single-byte code pages, and the double-byte
   * ones: GBK, Big5, Shift_JIS, EUC-KR). GB18030's four-byte forms are not built: characters only
   * they hold are refused. The first byte sequence found for a character wins (the standard one).
   */
  private buildTable(): Map<string, Buffer> {
    const table = new Map<string, Buffer>();
    const one = (ch: string, bytes: number[]) => {
      if (ch.includes('\ufffd') || [...ch].length !== 1 || table.has(ch)) return;
      table.set(ch, Buffer.from(bytes));
    };
    const pair = Buffer.alloc(2);
    for (let a = 0; a < 0x100; a++) one(this.lossy.decode(Buffer.from([a])), [a]);
    for (let a = 0x80; a < 0x100; a++) {
      pair[0] = a;
      for (let b = 0x30; b < 0x100; b++) {
        pair[1] = b;
        one(this.lossy.decode(pair), [a, b]);
      }
    }
    return table;
  }
}

/** Bytes as hex pairs, for messages about a name that is no text (`d5 c5 c8`). */
export function hexBytes(bytes: Uint8Array, max = 24): string {
  const hex = [...bytes.subarray(0, max)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  return bytes.length > max ? `${hex} ...` : hex;
}
