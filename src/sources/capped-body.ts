import type { Readable } from 'node:stream';

/**
 * A device's answer body as text, read up to `max` bytes and no further: an answer that says
 * (Content-Length, `declared`) or turns out to be larger is destroyed at once, without buffering
 * it, and `tooLarge()` thrown (each source words it: which answer, how large one usually is).
 */
export async function readCappedBody(
  body: Readable,
  max: number,
  declared: string | string[] | undefined,
  tooLarge: () => Error,
): Promise<string> {
  const refuse = () => {
    body.destroy();
    return tooLarge();
  };
  const length = Number(Array.isArray(declared) ? declared[0] : declared);
  if (Number.isFinite(length) && length > max) throw refuse();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > max) throw refuse();
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
