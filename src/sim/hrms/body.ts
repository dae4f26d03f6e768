import type { IncomingMessage } from 'node:http';
import { boundaryOf, MultipartError, parseMultipart } from './multipart.js';

export class BodyTooLargeError extends Error {}

/** Collects the whole request body; refuses more than `maxBytes`. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > maxBytes) {
        failed = true;
        reject(new BodyTooLargeError(`body larger than ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
      failed = true;
    });
  });
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Form fields of a multipart/form-data or application/x-www-form-urlencoded body.
 * Another media type answers an empty map (the caller then reports the missing field).
 */
export function parseForm(body: Buffer, contentType: string | undefined): Map<string, string> {
  const type = mediaType(contentType);
  if (type === 'multipart/form-data') {
    const boundary = boundaryOf(contentType ?? '');
    if (!boundary) throw new MultipartError('multipart/form-data without a boundary parameter');
    return parseMultipart(body, boundary);
  }
  if (type === 'application/x-www-form-urlencoded') {
    const out = new Map<string, string>();
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) if (!out.has(k)) out.set(k, v);
    return out;
  }
  return new Map();
}

export function isJsonType(contentType: string | undefined): boolean {
  const t = mediaType(contentType);
  return t === 'application/json' || t.endsWith('+json');
}

/** JSON.parse that answers undefined instead of throwing. */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
