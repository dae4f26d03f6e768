import type { IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions } from 'node:zlib';
import { printable } from './terminal-text.js';

/**
 * A body sent compressed: a request to the push receiver (an ADMS upload: adms/http-body.ts) or
 * to a Hikvision terminal's HTTP Listening path (hikvision/listen-post.ts), or an HRMS's answer
 * (hrms/decode-body.ts). A push body sent compressed (`Content-Encoding: gzip`, or a coding in
 * `Transfer-Encoding` before `chunked`): Node takes the chunks apart but uncompresses nothing.
 * Read as text, a gzip upload was a line of binary "kept raw" (its bytes already mangled into
 * U+FFFD, so no reparse could bring it back) and answered `OK:0`; the terminal, told OK, forgot
 * the batch. Now the body is uncompressed within its bound, or, in a coding punchgate cannot read,
 * refused (the terminal keeps it and sends it again) and said.
 */

export type Decoded =
  | { kind: 'body'; data: Buffer }
  /** Larger than the bound once uncompressed (a genuine large upload, or a "zip bomb"). */
  | { kind: 'too-large' }
  /** `coding`: as the device wrote it, printable and short; `why`: not a coding read here, or the bytes are not in it. */
  | { kind: 'unreadable'; coding: string; why: string };

type Inflate = (data: Buffer, opts: ZlibOptions) => Promise<Buffer>;

const gunzipAsync = promisify(gunzip) as Inflate;
const inflateAsync = promisify(inflate) as Inflate;
const inflateRawAsync = promisify(inflateRaw) as Inflate;
const brotliAsync = promisify(brotliDecompress) as Inflate;

/**
 * `deflate` is zlib-wrapped by the standard (RFC 9110 8.4.1.2), but some senders write bare
 * deflate data under that name: read either.
 */
const inflateEither: Inflate = (data, opts) => inflateAsync(data, opts).catch(() => inflateRawAsync(data, opts));

const CODINGS: Record<string, Inflate> = {
  gzip: gunzipAsync,
  'x-gzip': gunzipAsync,
  deflate: inflateEither,
  br: brotliAsync,
};

/** The codings read, for the admin's words. */
export const READ_CODINGS = 'gzip, deflate or br';

/** More codings stacked on one body than any sender uses: refused, not uncompressed step by step. */
const MAX_CODINGS = 2;

/**
 * The codings applied to a request's body, in the order they were applied: `Content-Encoding`'s,
 * then `Transfer-Encoding`'s but `chunked` (which Node has already taken off). Lower case;
 * `identity` and blanks left out. Empty: a plain body.
 */
export function codingsOf(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): string[] {
  const list = (h: string | string[] | undefined) =>
    (Array.isArray(h) ? h.join(',') : (h ?? ''))
      .split(',')
      .map((c) => c.trim().toLowerCase())
      .filter((c) => c !== '' && c !== 'identity');
  return [...list(headers['content-encoding']), ...list(headers['transfer-encoding']).filter((c) => c !== 'chunked')];
}

/** `data` with `codings` taken off (the last applied first), never larger than `maxBytes`. Never rejects. */
export async function decodeBody(data: Buffer, codings: readonly string[], maxBytes: number): Promise<Decoded> {
  const named = printable(codings.join(', '), 40);
  if (codings.length > MAX_CODINGS) return { kind: 'unreadable', coding: named, why: 'too many codings on one body' };
  let out = data;
  for (const coding of [...codings].reverse()) {
    const inflate = CODINGS[coding];
    if (!inflate) return { kind: 'unreadable', coding: named, why: `punchgate reads ${READ_CODINGS} only` };
    // An empty body is empty in any coding (a coding's own header would be at least a few bytes).
    if (out.length === 0) continue;
    try {
      out = await inflate(out, { maxOutputLength: maxBytes });
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return { kind: 'too-large' };
      return {
        kind: 'unreadable',
        coding: named,
        why: `its bytes are not ${coding} data or were cut short (${printable((e as Error).message, 60)})`,
      };
    }
  }
  return { kind: 'body', data: out };
}
