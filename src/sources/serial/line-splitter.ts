/**
 * Cuts a serial byte stream into lines.
 *
 * Terminals end lines with "\n", "\r\n" or a lone "\r"; a read may stop anywhere, even
 * between the "\r" and "\n" of one ending, so the splitter keeps state across chunks.
 * A line longer than `maxLineBytes` (line noise without an ending, a wrong baud rate)
 * is dropped up to its next ending and counted, so memory stays bounded.
 */

const LF = 0x0a;
const CR = 0x0d;

export const DEFAULT_MAX_LINE_BYTES = 1024;

export interface SplitResult {
  /** Complete lines, without their endings, decoded as latin1 (one char per byte); empty lines left out. */
  lines: string[];
  /** Lines dropped because they grew past the cap. */
  overflows: number;
}

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** Inside an over-long line: bytes are dropped until the next ending. */
  private discarding = false;
  /** The previous chunk ended with "\r": a leading "\n" belongs to that ending. */
  private afterCR = false;

  constructor(readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES) {}

  push(chunk: Buffer): SplitResult {
    const out: SplitResult = { lines: [], overflows: 0 };
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b !== LF && b !== CR) continue;
      if (b === LF && i === start && this.afterCR && this.size === 0 && !this.discarding) {
        // Second half of a "\r\n" ending.
        this.afterCR = false;
        start = i + 1;
        continue;
      }
      this.endLine(chunk.subarray(start, i), out);
      this.afterCR = b === CR;
      start = i + 1;
    }
    if (start < chunk.length) {
      this.afterCR = false;
      this.keep(chunk.subarray(start), out);
    }
    return out;
  }

  /** The bytes of the line not ended yet (empty inside an over-long line being dropped). */
  unfinished(): Buffer {
    return this.discarding ? Buffer.alloc(0) : Buffer.concat(this.parts);
  }

  /** Forgets a partial line (the device went away); true when there was one. */
  reset(): boolean {
    const had = this.size > 0 || this.discarding;
    this.parts = [];
    this.size = 0;
    this.discarding = false;
    this.afterCR = false;
    return had;
  }

  private keep(segment: Buffer, out: SplitResult): void {
    if (this.discarding) return;
    if (this.size + segment.length > this.maxLineBytes) {
      this.parts = [];
      this.size = 0;
      this.discarding = true;
      out.overflows++;
      return;
    }
    // Copy: the stream may reuse the chunk's memory for its next read.
    this.parts.push(Buffer.from(segment));
    this.size += segment.length;
  }

  private endLine(segment: Buffer, out: SplitResult): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    if (this.size + segment.length > this.maxLineBytes) {
      this.parts = [];
      this.size = 0;
      out.overflows++;
      return;
    }
    const line =
      this.size === 0 ? segment.toString('latin1') : Buffer.concat([...this.parts, segment]).toString('latin1');
    this.parts = [];
    this.size = 0;
    if (line.length > 0) out.lines.push(line);
  }
}
