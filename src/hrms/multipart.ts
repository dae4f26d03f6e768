import { randomBytes } from 'node:crypto';

/**
 * A multipart/form-data body of one text field, as one buffer: the field's text is copied once,
 * from the JavaScript string into the bytes sent (undici's FormData encodes the field into a
 * chunk of its own and then copies the parts again into the request stream).
 *
 * The boundary cannot occur in the value where it is used for JSON: a boundary line starts with
 * CR LF, and JSON.stringify never writes a raw CR or LF (inside strings they are escaped).
 */
export function multipartField(name: string, value: string): { body: Buffer; contentType: string } {
  const boundary = `----punchgate${randomBytes(12).toString('hex')}`;
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n--${boundary}--\r\n`,
    'utf8',
  );
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}
