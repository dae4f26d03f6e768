/**
 * The alert stream's body: an endless multipart/mixed response, one part per event (JSON or XML,
 * sometimes a JPEG picture), parts delimited by `--boundary` and usually sized by Content-Length.
 * Fed chunk by chunk; emits each complete part.
 *
 * As firmware writes it: part heads ending in CRLF or in a bare LF, a body with or without a
 * Content-Length, bytes before the first boundary (some devices start with a stray head). The
 * parse is linear: each byte is copied into the buffer once and searched once (no buffer joined
 * again at every chunk), and bounded: a part longer than MAX_PART_BYTES, a head longer than
 * MAX_PART_HEAD_BYTES or as many bytes without any boundary is a StreamBoundError, not memory.
 */
import { MAX_PART_BYTES, MAX_PART_HEAD_BYTES } from './limits.js';

export interface StreamPart {
  contentType: string;
  body: Buffer;
}

export function boundaryOf(contentType: string): string | undefined {
  const m = /boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** The device broke a bound of the stream: the stream is dropped and the device named. */
export class StreamBoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamBoundError';
  }
}

export interface StreamBounds {
  maxPartBytes: number;
  maxHeadBytes: number;
}

/** Bytes received and not yet taken, in one buffer that grows by doubling (amortised linear). */
class ByteQueue {
  private buf = Buffer.allocUnsafe(16 * 1024);
  private start = 0;
  private end = 0;

  get length(): number {
    return this.end - this.start;
  }

  push(chunk: Buffer): void {
    if (this.end + chunk.length > this.buf.length) {
      const len = this.length;
      const target =
        len + chunk.length <= this.buf.length / 2
          ? this.buf
          : Buffer.allocUnsafe(Math.max(this.buf.length * 2, len + chunk.length));
      this.buf.copy(target, 0, this.start, this.end);
      this.buf = target;
      this.start = 0;
      this.end = len;
    }
    chunk.copy(this.buf, this.end);
    this.end += chunk.length;
  }

  /** Index (from the first byte held) of `needle` at or after `from`, or -1. */
  indexOf(needle: Buffer | string, from: number): number {
    const i = this.buf.subarray(this.start, this.end).indexOf(needle, from);
    return i;
  }

  byteAt(i: number): number {
    return this.buf[this.start + i]!;
  }

  /** A copy of bytes [from, to) (the buffer is reused). */
  copy(from: number, to: number): Buffer {
    return Buffer.from(this.buf.subarray(this.start + from, this.start + to));
  }

  text(from: number, to: number): string {
    return this.buf.toString('latin1', this.start + from, this.start + to);
  }

  drop(n: number): void {
    this.start += n;
    if (this.start >= this.end) {
      this.start = this.end = 0;
      // Do not keep megabytes for the small parts that follow a large one.
      if (this.buf.length > 256 * 1024) this.buf = Buffer.allocUnsafe(16 * 1024);
    }
  }
}

type State =
  | { at: 'seek' }
  | { at: 'head'; headers: Map<string, string>; lines: number }
  | { at: 'body'; contentType: string; length: number | undefined };

export class MultipartStreamParser {
  private readonly q = new ByteQueue();
  private delimiter: Buffer;
  /** The delimiter as the body spells it was found once (until then its case may differ). */
  private delimiterSeen = false;
  private readonly bounds: StreamBounds;
  private state: State = { at: 'seek' };
  /** Where the next search in the held bytes starts (all before it was searched already). */
  private scan = 0;
  /** Bytes skipped while looking for a boundary (a preamble, the CRLF after a part). */
  private skipped = 0;

  constructor(
    boundary: string,
    private readonly onPart: (part: StreamPart) => void,
    bounds: Partial<StreamBounds> = {},
  ) {
    // Some devices write the boundary with its leading dashes in the header already.
    this.delimiter = Buffer.from(boundary.startsWith('--') ? boundary : `--${boundary}`);
    this.bounds = { maxPartBytes: MAX_PART_BYTES, maxHeadBytes: MAX_PART_HEAD_BYTES, ...bounds };
  }

  /** Takes one chunk; calls onPart for each part it completes. Throws StreamBoundError. */
  push(chunk: Buffer): void {
    this.q.push(chunk);
    while (this.step()) {
      /* each step takes one delimiter, head line or body */
    }
  }

  /** Moves one step on; false when more bytes are needed. */
  private step(): boolean {
    const s = this.state;
    if (s.at === 'seek') return this.seek();
    if (s.at === 'head') return this.headLine(s);
    return this.body(s);
  }

  private seek(): boolean {
    let i = this.q.indexOf(this.delimiter, this.scan);
    if (i < 0 && !this.delimiterSeen) i = this.adoptDelimiterSpelling();
    const d = this.delimiter;
    if (i < 0) {
      // Keep what could be the start of a boundary; the rest is not part of any part.
      const keep = Math.min(this.q.length, d.length - 1);
      this.skip(this.q.length - keep);
      return false;
    }
    this.skip(i);
    this.q.drop(d.length);
    this.delimiterSeen = true;
    this.state = { at: 'head', headers: new Map(), lines: 0 };
    return true;
  }

  /**
   * Before the first delimiter: the boundary the header names, found in the body in another case.
   * A DS-K1T323 posts `boundary=mime_boundary` in its Content-Type and `--MIME_boundary` in its
   * body (a capture published from a production terminal): read as written, every post of it was
   * refused and its punches were lost to HTTP Listening. The body's own spelling is adopted.
   * Returns where it starts, or -1.
   */
  private adoptDelimiterSpelling(): number {
    const i = this.q.text(0, this.q.length).toLowerCase().indexOf(this.delimiter.toString('latin1').toLowerCase());
    if (i >= 0) this.delimiter = this.q.copy(i, i + this.delimiter.length);
    return i;
  }

  private skip(n: number): void {
    this.q.drop(n);
    this.scan = 0;
    this.skipped += n;
    if (this.skipped > this.bounds.maxPartBytes) {
      throw new StreamBoundError(`more than ${kb(this.bounds.maxPartBytes)} without a part boundary`);
    }
  }

  /** One line of a part's head (CRLF or bare LF); an empty line ends the head. */
  private headLine(s: Extract<State, { at: 'head' }>): boolean {
    const nl = this.q.indexOf('\n', this.scan);
    // The bound holds for the line however it arrived: in pieces, or whole in one chunk.
    if ((nl < 0 ? this.q.length : nl) > this.bounds.maxHeadBytes) {
      throw new StreamBoundError(`a part head of more than ${kb(this.bounds.maxHeadBytes)}`);
    }
    if (nl < 0) {
      this.scan = this.q.length;
      return false;
    }
    const line = this.q.text(0, nl).replace(/\r$/, '');
    this.q.drop(nl + 1);
    this.scan = 0;
    s.lines++;
    if (s.lines === 1) {
      // The rest of the boundary line: `--` closes the multipart (a device may open a new one).
      if (line.startsWith('--')) this.toSeek();
      return true;
    }
    if (line.trim() === '') {
      const length = Number(s.headers.get('content-length'));
      const known = s.headers.has('content-length') && Number.isSafeInteger(length) && length >= 0;
      if (known && length > this.bounds.maxPartBytes) {
        throw new StreamBoundError(`a part of ${kb(length)} (more than ${kb(this.bounds.maxPartBytes)})`);
      }
      this.state = { at: 'body', contentType: s.headers.get('content-type') ?? '', length: known ? length : undefined };
      return true;
    }
    if (s.lines > 64) throw new StreamBoundError('a part head of more than 64 lines');
    const c = line.indexOf(':');
    if (c > 0) s.headers.set(line.slice(0, c).trim().toLowerCase(), line.slice(c + 1).trim());
    return true;
  }

  private body(s: Extract<State, { at: 'body' }>): boolean {
    let end: number;
    if (s.length !== undefined) {
      if (this.q.length < s.length) return false;
      end = s.length;
    } else {
      const i = this.q.indexOf(this.delimiter, this.scan);
      // The body is what comes before its delimiter: the last bytes held may be the delimiter's
      // start, and are not counted. So a part is measured the same whole or in pieces.
      const bodyBytes = i >= 0 ? i : this.q.length - (this.delimiter.length - 1);
      if (bodyBytes > this.bounds.maxPartBytes) {
        throw new StreamBoundError(`a part of more than ${kb(this.bounds.maxPartBytes)} without an end`);
      }
      if (i < 0) {
        this.scan = Math.max(0, this.q.length - (this.delimiter.length - 1));
        return false;
      }
      end = i;
    }
    const body = this.q.copy(0, end);
    this.q.drop(end);
    this.toSeek();
    this.onPart({ contentType: s.contentType, body });
    return true;
  }

  private toSeek(): void {
    this.state = { at: 'seek' };
    this.scan = 0;
    this.skipped = 0;
  }
}

const kb = (n: number) =>
  n >= 1024 * 1024 ? `${Math.round(n / 1024 / 1024)} MB` : `${Math.max(1, Math.round(n / 1024))} kB`;
