/**
 * A multipart/form-data reader (RFC 7578 / RFC 2046) over a complete body.
 *
 * The whole body is collected first, so how it was split into TCP segments does not matter.
 * Only what an HRMS needs: the text value of each named part (file parts included).
 */

export class MultipartError extends Error {}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary parameter of a multipart Content-Type, quoted or not. */
export function boundaryOf(contentType: string): string | null {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** The form field name of a part, from `Content-Disposition: form-data; name="..."`. */
function partName(headers: string): string | null {
  for (const line of headers.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'content-disposition') continue;
    const value = line.slice(colon + 1);
    const m = /(?:^|;)\s*name=(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(value);
    if (!m) return null;
    const raw = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? '');
    // WHATWG FormData percent-encodes '"', CR and LF in names.
    return raw.replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
  }
  return null;
}

/** Field name -> text value; when a name repeats, the first part wins. Throws MultipartError. */
export function parseMultipart(body: Buffer, boundary: string): Map<string, string> {
  const delimiter = Buffer.from(`--${boundary}`);
  const nextDelimiter = Buffer.concat([CRLF, delimiter]);
  const fields = new Map<string, string>();

  // The first delimiter may follow a preamble, which is ignored.
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw new MultipartError('multipart body has no boundary line');
  pos += delimiter.length;

  while (true) {
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return fields; // "--": close delimiter
    while (body[pos] === 0x20 || body[pos] === 0x09) pos++; // transport padding
    if (body[pos] !== 0x0d || body[pos + 1] !== 0x0a) throw new MultipartError('malformed multipart boundary line');
    pos += 2;

    let headers = '';
    let contentStart: number;
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) {
      contentStart = pos + 2; // a part without headers
    } else {
      const headerEnd = body.indexOf(HEADER_END, pos);
      if (headerEnd < 0) throw new MultipartError('multipart part headers are not terminated');
      headers = body.toString('utf8', pos, headerEnd);
      contentStart = headerEnd + HEADER_END.length;
    }

    const end = body.indexOf(nextDelimiter, contentStart);
    if (end < 0) throw new MultipartError('multipart body ends before its closing boundary');
    const name = partName(headers);
    if (name !== null && !fields.has(name)) fields.set(name, body.toString('utf8', contentStart, end));
    pos = end + nextDelimiter.length;
  }
}
