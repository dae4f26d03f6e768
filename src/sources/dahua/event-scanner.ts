/**
 * Scans a Dahua event stream chunk by chunk for the only words that matter: a part boundary and
 * an access event (`Code=AccessControl`). A word split between two chunks is found by keeping the
 * last bytes of each chunk to search again with the next one.
 *
 * The part in progress is measured on absolute byte offsets (where its boundary ended, how many
 * bytes came in all), never by adding up what each search looked at: the bytes kept and searched
 * again would count once per chunk, and a 60 kB part arriving 8 bytes at a time (a proxy, a slow
 * link) measured as more than 256 kB and was refused, in a loop.
 */
const EVENT_WORD = 'Code=AccessControl';

export class EventStreamScanner {
  private carry = '';
  /** Bytes taken in all, and the offset (in those) where the current part began. */
  private taken = 0;
  private partStart = 0;
  /** Bytes kept from one chunk for the next: one less than the longest word looked for. */
  private readonly keep: number;

  constructor(
    private readonly marker: string,
    private readonly onEvent: () => void,
  ) {
    this.keep = Math.max(marker.length, EVENT_WORD.length) - 1;
  }

  /** Takes one chunk; returns the bytes of the part in progress, from its boundary to here. */
  push(chunk: Buffer): number {
    // latin1: one character per byte, so text offsets are byte offsets.
    const text = this.carry + chunk.toString('latin1');
    const base = this.taken - this.carry.length;
    this.taken += chunk.length;
    let from = 0;
    for (;;) {
      const b = text.indexOf(this.marker, from);
      const ev = text.indexOf(EVENT_WORD, from);
      if (b < 0 && ev < 0) break;
      if (ev >= 0 && (b < 0 || ev < b)) {
        this.onEvent();
        from = ev + EVENT_WORD.length;
      } else {
        from = b + this.marker.length;
        this.partStart = base + from;
      }
    }
    // Only bytes after the last word found are kept: a word is never found twice.
    this.carry = text.slice(Math.max(from, text.length - this.keep));
    return this.taken - this.partStart;
  }
}
