/**
 * The bytes column of a kept push upload (push_kept) and what it says of the body's text: a body
 * of lines that were not UTF-8 is stored as their bytes one character per byte (latin1), and its
 * `bytes` is then the body's length; a UTF-8 body's `bytes` is its UTF-8 length. The two differ
 * for a body with any character past ASCII, and for an ASCII body both readings are the same
 * bytes: so the row says which it is without a column of its own (no schema change), and rows
 * kept before read as UTF-8, as they were written.
 */
export function keptBytesCount(body: string, latin1: boolean | undefined): number {
  return latin1 ? body.length : Buffer.byteLength(body);
}

/** Whether a stored body holds its bytes one character per byte (see above). */
export function isLatin1Kept(body: string, bytes: number): boolean {
  return bytes === body.length && Buffer.byteLength(body) !== body.length;
}
