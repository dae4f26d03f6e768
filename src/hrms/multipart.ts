import { randomBytes } from 'node:crypto';

/**
 * A multipart/form-data body of one text field, as one buffer: the field's text is copied once,
 * from the JavaScript string straight into the bytes sent (no joined string first, and not
 * undici's FormData, which encodes the field into a chunk of its own and then copies the parts
 * again into the request stream).
 *
 * The boundary cannot occur in the value where it is used for JSON: a boundary line starts with
 * CR LF, and JSON.stringify never writes a raw CR or LF (inside strings they are escaped).
 */
export function multipartField(name: string, value: string): { body: Buffer; contentType: string } {
  const boundary = `----punchgate${randomBytes(12).toString('hex')}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  // The head and tail are ASCII (the name is ours): their byte length is their length.
  const size = head.length + Buffer.byteLength(value, 'utf8') + tail.length;
  const body = Buffer.allocUnsafe(size);
  let at = body.write(head, 0, 'latin1');
  at += body.write(value, at, 'utf8');
  at += body.write(tail, at, 'latin1');
  if (at !== size) throw new Error(`multipart body: wrote ${at} of ${size} bytes`);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}
