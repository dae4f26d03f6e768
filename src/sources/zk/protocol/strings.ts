/** Fixed-width string fields: UTF-8, NUL-terminated within the field (a full field has no NUL). */

export function readCString(buf: Buffer, offset: number, width: number): string {
  return readCBytes(buf, offset, width).toString('utf8');
}

/** The bytes of a NUL-terminated field (for names in a terminal's own character set). */
export function readCBytes(buf: Buffer, offset: number, width: number): Buffer {
  const end = Math.min(offset + width, buf.length);
  let stop = buf.indexOf(0, offset);
  if (stop < 0 || stop > end) stop = end;
  return buf.subarray(offset, stop);
}

/** Writes bytes already in the field's character set into a NUL-padded field; throws when they do not fit. */
export function writeCBytes(buf: Buffer, bytes: Buffer, offset: number, width: number, field: string): void {
  if (bytes.length > width) throw new RangeError(`${field} is ${bytes.length} bytes; the field holds ${width}`);
  buf.fill(0, offset, offset + width);
  bytes.copy(buf, offset);
}

/**
 * Writes `value` into a NUL-padded field of `width` bytes. Throws when the UTF-8 form does
 * not fit (silently cutting a user id would make it someone else's), unless `truncate` is set
 * (display names): then it is cut at a character boundary.
 */
export function writeCString(
  buf: Buffer,
  value: string,
  offset: number,
  width: number,
  field: string,
  truncate = false,
): void {
  let bytes: Buffer = Buffer.from(value, 'utf8');
  if (bytes.length > width && truncate) bytes = cutUtf8(bytes, width);
  if (bytes.length > width) {
    throw new RangeError(`${field} "${value}" is ${bytes.length} bytes in UTF-8; the field holds ${width}`);
  }
  buf.fill(0, offset, offset + width);
  bytes.copy(buf, offset);
}

/** The longest prefix of `bytes` within `max` bytes that does not split a UTF-8 sequence. */
function cutUtf8(bytes: Buffer, max: number): Buffer {
  let end = max;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** True for a non-empty string with no control characters (a plausible id or name). */
export function isPrintable(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  return s.length > 0 && !/[\u0000-\u001f\u007f\ufffd]/.test(s);
}
