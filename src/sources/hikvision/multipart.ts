/**
 * The alert stream's body: an endless multipart/mixed response, one part per event (JSON or XML,
 * sometimes a JPEG picture), parts delimited by `--boundary` and usually sized by Content-Length.
 * Fed chunk by chunk; emits each complete part.
 */
export interface StreamPart {
  contentType: string;
  body: Buffer;
}

export function boundaryOf(contentType: string): string | undefined {
  const m = /boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** More than this buffered without a complete part is not an event stream. */
const MAX_BUFFERED = 8 * 1024 * 1024;

export class MultipartStreamParser {
  private buf: Buffer = Buffer.alloc(0);
  private readonly delimiter: Buffer;

  constructor(
    boundary: string,
    private readonly onPart: (part: StreamPart) => void,
  ) {
    // Some devices write the boundary with its leading dashes in the header already.
    this.delimiter = Buffer.from(boundary.startsWith('--') ? boundary : `--${boundary}`);
  }

  push(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      const part = this.next();
      if (part === undefined) break;
      if (part) this.onPart(part);
    }
    if (this.buf.length > MAX_BUFFERED) {
      throw new Error(`alert stream: ${this.buf.length} bytes without a complete part`);
    }
  }

  /** A part, null for something skipped (a preamble), undefined when more bytes are needed. */
  private next(): StreamPart | null | undefined {
    const start = this.buf.indexOf(this.delimiter);
    if (start < 0) return undefined;
    const headEnd = this.buf.indexOf('\r\n\r\n', start);
    if (headEnd < 0) return undefined;
    const head = this.buf.subarray(start + this.delimiter.length, headEnd).toString('latin1');
    const headers = new Map<string, string>();
    for (const line of head.split('\r\n')) {
      const i = line.indexOf(':');
      if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
    }
    const bodyStart = headEnd + 4;
    const length = Number(headers.get('content-length'));
    let bodyEnd: number;
    let rest: number;
    if (Number.isSafeInteger(length) && length >= 0) {
      if (this.buf.length < bodyStart + length) return undefined;
      bodyEnd = bodyStart + length;
      rest = bodyEnd;
    } else {
      const nextDelim = this.buf.indexOf(this.delimiter, bodyStart);
      if (nextDelim < 0) return undefined;
      bodyEnd = nextDelim;
      rest = nextDelim;
    }
    const body = Buffer.from(this.buf.subarray(bodyStart, bodyEnd));
    this.buf = this.buf.subarray(rest);
    return { contentType: headers.get('content-type') ?? '', body };
  }
}
