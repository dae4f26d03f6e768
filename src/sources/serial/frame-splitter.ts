import { LineSplitter } from './line-splitter.js';
import { isBurstKeyByte } from './keypad.js';
import { mayBePacketLength, opensCardPacket } from './card-packet.js';

/**
 * Cuts a serial byte stream into frames: what one read of the reader (a card, a key, a line) is.
 *
 * Readers end their reads in different ways (docs/terminals-serial.md, "Framing"):
 * - `line`: CR, LF or CRLF (time clocks, most USB card readers): exactly what LineSplitter does;
 * - `etx`: ETX (0x03), usually after an STX (0x02): RDM6300/RDM630-type 125 kHz readers send
 *   STX, 10 hex digits, 2 hex digits of checksum, ETX and no line end;
 * - `length`: every `frameBytes` bytes (readers that send fixed-size records and nothing else);
 * - `gap`: a silence of `gapMs` (readers that pause between reads and frame nothing);
 * - `auto` (the default): STX opens a frame (bytes before it are a frame of their own); ETX, CR,
 *   LF and CRLF end one (a reader's STX data CR LF ETX is one frame); and a few bytes (`keypadMaxBytes`) followed by a silence of `gapMs` are a frame of
 *   their own. That last rule keeps a keypad key that a Wiegand-to-RS232 converter sends as one
 *   bare byte ("one byte will be output without the suffix 0D 0A") apart from the card line that
 *   follows it, and it never cuts a longer line that arrives in pieces.
 *   With `burstKeys`, a keypad's 8-bit burst byte (key in the low nibble, its complement in the
 *   high one) at the start of a frame is a frame of its own whatever comes after it and however
 *   late we read: the byte carries its own check, so the key never needs a silence to end it
 *   (a loaded daemon read `*` (0x5A, "Z") and card 0000123479 in one read as "Z0000123479").
 *   The four burst bytes that are printable (x, i, Z, K: keys 8, 9, `*`, `#`) are cut off only
 *   when a digit or another burst byte follows (a label such as "id=..." stays whole).
 * In `auto` and `etx`, an STX followed by a length (6 to 31) and a card type that are control
 * bytes opens a binary card packet (card-packet.ts: a 7941E-type module's STX, length, type,
 * serial bytes, BCC, ETX): its bytes are binary (a card's byte may be 0x03, 0x0A or 0x0D), so it
 * is cut by its length byte alone. A printed frame never has two control bytes after its STX.
 * Read as printed frames, every packet was malformed and every card of such a reader lost (found
 * by a device trial).
 * Everything unambiguous is found in `auto`; a fixed length is not (any stream can be cut in
 * N-byte pieces), nor is a reader that frames only by silence: those are set by `framing:`.
 *
 * In `gap`, a silence is seen when the box reads, not when the bytes came: a box stalled in the
 * middle of a read (a disk sync, a busy event loop) saw a silence there, and the two halves were
 * two reads, a 6-digit half of a 10-digit card a card nobody holds. A silence is sure only when
 * the silence timer fires on time (`idle(at)` within GAP_SLACK of its due time); one seen late,
 * or by a read that came after it (the timer never got to run), is unsure. The splitter learns the
 * reader's read length from sure reads (LEARN_READS in a row of one length), and across an unsure
 * silence a frame shorter than it waits for its rest (at most MAX_HOLDS times) instead of ending:
 * the halves are one read again. A frame that an unsure silence touched is cut into reads of the
 * learned length when its length is a multiple of it, else where the unsure silences were (as
 * before): never a read lost, never one made up of two.
 *
 * Bytes are kept as latin1 (one char per byte). A frame longer than `maxBytes` is dropped up to
 * its next end and counted, so memory stays bounded.
 */

export type Framing = 'auto' | 'line' | 'etx' | 'length' | 'gap';

/** How a frame ended: its terminator, its length, a silence, or an STX that opened the next one. */
export type FrameEnd = 'line' | 'etx' | 'length' | 'gap' | 'stx' | 'key';

export interface Frame {
  /** The frame's bytes without STX, ETX or line end, as latin1. */
  text: string;
  end: FrameEnd;
  /** It began with STX. */
  stx: boolean;
  /** A binary card packet: `text` is its bytes from the length to the BCC; `end` 'etx' when whole. */
  packet?: true;
}

export interface FrameResult {
  frames: Frame[];
  /** Frames dropped because they grew past the bound. */
  overflows: number;
}

export interface FrameSplitterOptions {
  framing: Framing;
  maxBytes: number;
  /** For `length`. */
  frameBytes?: number;
  /** For `gap`, `length` (a partial frame is dropped after it) and `auto` (keypad keys). */
  gapMs: number;
  /** `auto`: at most this many bytes before a silence are a frame (a key); 0 = never. */
  keypadMaxBytes: number;
  /** `auto`: an 8-bit keypad burst byte opening a frame is a key frame of its own (see above). */
  burstKeys?: boolean;
}

/** How late past `gapMs` the silence timer may fire for the silence to count as seen (ms). */
const GAP_SLACK = (gapMs: number) => 10 + Math.floor(gapMs / 2);
/** Sure reads of one length in a row that make it the reader's read length (framing gap). */
export const LEARN_READS = 5;
/** Unsure silences a short frame waits across before it ends as it is. */
const MAX_HOLDS = 3;

const STX = 0x02;
const ETX = 0x03;
const LF = 0x0a;
const CR = 0x0d;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;

export class FrameSplitter {
  private readonly lines: LineSplitter | null;
  private bytes: number[] = [];
  private stx = false;
  private discarding = false;
  private afterCR = false;
  private lastByteAt: number | null = null;
  /** Inside a binary card packet: the bytes its length byte says it has (STX and ETX included); 0 outside. */
  private packetLength = 0;
  /** The byte after an STX that may be a packet's length, held until the next byte says (0: none). */
  private maybeLength = 0;
  /** framing gap: the lengths of the last sure reads, and the read length they agree on (null: none yet). */
  private sureLengths: number[] = [];
  private readLength: number | null = null;
  /** framing gap: where in the frame unsure silences were waited across, and whether one touched it. */
  private joins: number[] = [];
  private holds = 0;
  private unsure = false;

  constructor(private readonly o: FrameSplitterOptions) {
    this.lines = o.framing === 'line' ? new LineSplitter(o.maxBytes) : null;
  }

  get maxBytes(): number {
    return this.o.maxBytes;
  }

  /**
   * Bytes are held that a silence of `gapMs` would end (or drop): the caller calls `idle` once
   * that silence has passed. Null when nothing waits on a silence.
   */
  get waitsForSilence(): boolean {
    if (this.lines || this.bytes.length === 0 || this.discarding) return false;
    if (this.o.framing === 'gap' || this.o.framing === 'length') return true;
    return this.o.framing === 'auto' && !this.stx && this.bytes.length <= this.o.keypadMaxBytes;
  }

  /** One read of the device; `at` is a monotonic time in ms (to see silences between reads). */
  push(chunk: Buffer, at: number): FrameResult {
    if (this.lines) {
      const r = this.lines.push(chunk);
      return { frames: r.lines.map((text) => ({ text, end: 'line', stx: false })), overflows: r.overflows };
    }
    const out: FrameResult = { frames: [], overflows: 0 };
    // Bytes held over a silence the timer did not end: the box was busy, the silence is unsure.
    if (this.lastByteAt !== null && at - this.lastByteAt >= this.o.gapMs) {
      const held = this.bytes.length > 0;
      this.silence(out, false);
      // A frame ended so: this read came after the busy spell too, and may hold more than one read.
      if (held && this.o.framing === 'gap' && this.bytes.length === 0) this.unsure = true;
    }
    this.lastByteAt = at;
    for (const b of chunk) this.byte(b, out);
    return out;
  }

  /**
   * A silence of at least `gapMs` has passed since the last read, as the timer saw it at `at`
   * (the push clock): fired late, the box was busy and bytes may be waiting unread. Without `at`,
   * the silence is sure.
   */
  idle(at?: number): FrameResult {
    const out: FrameResult = { frames: [], overflows: 0 };
    if (this.lines) return out;
    const late =
      at !== undefined && this.lastByteAt !== null && at - this.lastByteAt > this.o.gapMs + GAP_SLACK(this.o.gapMs);
    this.silence(out, !late);
    // Waited across: the silence is looked for again from now.
    if (late && this.bytes.length > 0 && (this.o.framing === 'gap' || this.o.framing === 'length'))
      this.lastByteAt = at;
    return out;
  }

  /**
   * The bytes of the frame not ended yet, as read (its STX included), so that a reader taking the
   * device over (a reload) can go on with it. Empty inside an over-long frame being dropped.
   */
  unfinished(): Buffer {
    if (this.lines) return this.lines.unfinished();
    if (this.discarding || (this.bytes.length === 0 && !this.stx)) return Buffer.alloc(0);
    if (this.packetLength > 0) return Buffer.from([STX, ...this.bytes]);
    const held = this.maybeLength > 0 ? [this.maybeLength] : [];
    return Buffer.from(this.stx ? [STX, ...this.bytes, ...held] : this.bytes);
  }

  /** Forgets a partial frame (the device went away); true when there was one. */
  reset(): boolean {
    if (this.lines) return this.lines.reset();
    const had = this.bytes.length > 0 || this.discarding || this.maybeLength > 0;
    this.bytes = [];
    this.stx = this.discarding = this.afterCR = false;
    this.lastByteAt = null;
    this.packetLength = this.maybeLength = 0;
    this.joins = [];
    this.holds = 0;
    this.unsure = false;
    return had;
  }

  private silence(out: FrameResult, sure: boolean): void {
    this.afterCR = false;
    switch (this.o.framing) {
      case 'gap':
        if (this.discarding) this.discarding = false;
        else this.endGap(out, sure);
        return;
      case 'length':
        // A partial record: the reader paused mid-record or a byte was lost. Drop it to resync.
        this.discarding = false;
        if (this.bytes.length > 0) this.end('gap', out);
        return;
      default:
        if (!this.stx && !this.discarding && this.bytes.length > 0 && this.bytes.length <= this.o.keypadMaxBytes)
          this.end('gap', out);
    }
  }

  private byte(b: number, out: FrameResult, mayOpenPacket = true): void {
    const f = this.o.framing;
    if (f === 'gap') return this.keep(b, out);
    if (f === 'length') {
      this.keep(b, out);
      if (this.bytes.length === this.o.frameBytes) this.end('length', out);
      return;
    }
    if (this.packetLength > 0) return this.packetByte(b, out);
    if (this.maybeLength > 0) {
      const length = this.maybeLength;
      this.maybeLength = 0;
      if (opensCardPacket(length, b)) {
        this.packetLength = length;
        this.bytes = [length, b];
        return;
      }
      // A printed frame after all: the held byte is read as any other, then this one.
      this.byte(length, out, false);
      return this.byte(b, out);
    }
    if (b === STX) {
      // Bytes before an STX are a frame of their own (a key, or noise): never glued to the card.
      if (this.bytes.length > 0 && !this.discarding) this.end('stx', out);
      this.bytes = [];
      this.discarding = false;
      this.stx = true;
      this.afterCR = false;
      return;
    }
    if (mayOpenPacket && this.stx && this.bytes.length === 0 && !this.discarding && mayBePacketLength(b)) {
      this.maybeLength = b;
      return;
    }
    if (b === ETX) {
      if (this.discarding) this.discarding = false;
      else this.end('etx', out);
      this.afterCR = false;
      return;
    }
    if (f === 'auto' && (b === CR || b === LF)) {
      if (b === LF && this.afterCR && this.bytes.length === 0 && !this.discarding) {
        // Second half of a CRLF.
        this.afterCR = false;
        return;
      }
      if (this.discarding) this.discarding = false;
      else this.end('line', out);
      this.afterCR = b === CR;
      return;
    }
    this.afterCR = false;
    if (f === 'auto' && this.o.burstKeys && !this.stx && !this.discarding && this.cutsBurstKey(b, out)) return;
    this.keep(b, out);
  }

  /**
   * An 8-bit burst key at the start of a frame: emitted as a key frame of its own. Returns true
   * when `b` itself was that key (nothing more to do with it).
   */
  private cutsBurstKey(b: number, out: FrameResult): boolean {
    if (this.bytes.length === 0) {
      if (!isBurstKeyByte(b) || b <= 0x7e) return false;
      // Above 0x7e: never the first byte of a card or a line's text.
      out.frames.push({ text: String.fromCharCode(b), end: 'key', stx: false });
      return true;
    }
    // A printable burst byte held as a frame's first byte: a key when a digit or a key follows.
    if (this.bytes.length === 1 && isBurstKeyByte(this.bytes[0] as number) && (isDigit(b) || isBurstKeyByte(b))) {
      this.end('key', out);
      if (isBurstKeyByte(b) && b > 0x7e) {
        out.frames.push({ text: String.fromCharCode(b), end: 'key', stx: false });
        return true;
      }
    }
    return false;
  }

  /**
   * A byte of a binary card packet. Where its length puts the ETX, any other byte ends the packet
   * cut short (a byte was lost) and is read anew: it may be the STX of the next packet.
   */
  private packetByte(b: number, out: FrameResult): void {
    if (this.bytes.length < this.packetLength - 2) {
      this.bytes.push(b);
      return;
    }
    const whole = b === ETX;
    out.frames.push({
      text: Buffer.from(this.bytes).toString('latin1'),
      end: whole ? 'etx' : 'length',
      stx: true,
      packet: true,
    });
    this.bytes = [];
    this.stx = false;
    this.packetLength = 0;
    if (!whole) this.byte(b, out);
  }

  /** framing gap: a silence ends the frame, or (unsure, and short of the read length) is waited across. */
  private endGap(out: FrameResult, sure: boolean): void {
    const n = this.bytes.length;
    if (n === 0) return;
    if (!sure) {
      this.unsure = true;
      if (this.readLength !== null && n < this.readLength && this.holds < MAX_HOLDS) {
        this.holds++;
        if (this.joins.at(-1) !== n) this.joins.push(n);
        return;
      }
    }
    const text = Buffer.from(this.bytes).toString('latin1');
    if (sure && !this.unsure) this.learn(n);
    const len = this.readLength;
    const cuts =
      this.unsure && len !== null && n > len && n % len === 0
        ? Array.from({ length: n / len - 1 }, (_, i) => (i + 1) * len)
        : len !== null && n === len
          ? []
          : this.joins;
    let from = 0;
    for (const cut of [...cuts, n]) {
      if (cut > from) out.frames.push({ text: text.slice(from, cut), end: 'gap', stx: false });
      from = cut;
    }
    this.bytes = [];
    this.stx = false;
    this.joins = [];
    this.holds = 0;
    this.unsure = false;
  }

  /** A sure read's length: the read length once LEARN_READS in a row agree; a read of another forgets it. */
  private learn(n: number): void {
    this.sureLengths = [...this.sureLengths, n].slice(-LEARN_READS);
    const agree = this.sureLengths.length === LEARN_READS && this.sureLengths.every((l) => l === n);
    this.readLength = agree ? n : null;
  }

  private keep(b: number, out: FrameResult): void {
    if (this.discarding) return;
    if (this.bytes.length >= this.o.maxBytes) {
      this.bytes = [];
      this.joins = [];
      this.holds = 0;
      this.stx = false;
      this.discarding = true;
      out.overflows++;
      return;
    }
    this.bytes.push(b);
  }

  private end(end: FrameEnd, out: FrameResult): void {
    const text = Buffer.from(this.bytes).toString('latin1');
    const stx = this.stx;
    this.bytes = [];
    this.joins = [];
    this.holds = 0;
    this.stx = false;
    if (text.length > 0) out.frames.push({ text, end, stx });
  }
}
