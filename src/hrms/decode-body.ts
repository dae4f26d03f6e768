import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from 'node:zlib';

/** As http.ts's HttpHeaders (not imported: http.ts imports this file). */
type HttpHeaders = Record<string, string | string[] | undefined>;

/**
 * An answer's body decoded from the one Content-Encoding it was sent in (gzip, deflate or br),
 * though punchgate asks for none: a proxy or a web server in front of the HRMS compresses
 * whatever passes (a trial: the HRMS recorded every batch and answered it gzip-compressed, read as
 * "not the HRMS's JSON": nothing was ever confirmed, the same punches were sent again and again).
 * The decoded size is capped by `limit` like any answer (a small body that inflates to gigabytes).
 * A body that does not decode is handed on as it came, its header kept: the caller says why it is
 * unreadable.
 */
export function decodeBody(
  raw: Buffer,
  headers: HttpHeaders,
  limit: number,
  tooLarge: () => Error,
): { body: Buffer; headers: HttpHeaders } {
  const said = headers['content-encoding'];
  const encoding = typeof said === 'string' ? said.trim().toLowerCase() : '';
  const decode = DECODERS[encoding];
  if (!decode || raw.length === 0) return { body: raw, headers };
  try {
    const body = decode(raw, { maxOutputLength: limit });
    const { 'content-encoding': _sent, 'content-length': _length, ...rest } = headers;
    return { body, headers: rest };
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    return { body: raw, headers };
  }
}

const DECODERS: Record<string, (b: Buffer, o: ZlibOptions) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  br: brotliDecompressSync,
  // "deflate" is zlib-wrapped by the standard, raw from some servers: both are read.
  deflate: (b, o) => {
    try {
      return inflateSync(b, o);
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw e;
      return inflateRawSync(b, o);
    }
  },
};
