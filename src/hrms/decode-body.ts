import { codingsOf, decodeBody } from '../util/content-coding.js';

/** As http.ts's HttpHeaders (not imported: http.ts imports this file). */
type HttpHeaders = Record<string, string | string[] | undefined>;

/**
 * An answer's body decoded from the Content-Encoding it was sent in (gzip, deflate or br),
 * though punchgate asks for none: a proxy or a web server in front of the HRMS compresses
 * whatever passes (a trial: the HRMS recorded every batch and answered it gzip-compressed, read as
 * "not the HRMS's JSON": nothing was ever confirmed, the same punches were sent again and again).
 * The decoded size is capped by `limit` like any answer (a small body that inflates to gigabytes).
 * A body that does not decode is handed on as it came, its header kept: the caller says why it is
 * unreadable. The decoding is the receivers' own (util/content-coding.ts).
 */
export async function decodeAnswer(
  raw: Buffer,
  headers: HttpHeaders,
  limit: number,
  tooLarge: () => Error,
): Promise<{ body: Buffer; headers: HttpHeaders }> {
  const codings = codingsOf(headers);
  if (codings.length === 0) return { body: raw, headers };
  const decoded = await decodeBody(raw, codings, limit);
  if (decoded.kind === 'too-large') throw tooLarge();
  if (decoded.kind === 'unreadable') return { body: raw, headers };
  const { 'content-encoding': _sent, 'content-length': _length, ...rest } = headers;
  return { body: decoded.data, headers: rest };
}
