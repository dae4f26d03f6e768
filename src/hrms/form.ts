/**
 * A multipart/form-data body of text fields (RFC 7578), as a browser's FormData sends it.
 * The attendance endpoint takes one field, `punches_data`: this is all the encoding it needs.
 */
export interface FormBody {
  body: Buffer;
  contentType: string;
}

export function formBody(fields: Readonly<Record<string, string>>, random: () => number = Math.random): FormBody {
  const values = Object.values(fields);
  // The boundary must not occur in any value: a random one almost never does, and the counter
  // makes each new try differ even from a poor random source.
  let boundary: string;
  let tries = 0;
  do boundary = `----punchgate${random().toString(36).slice(2, 12)}${(tries++).toString(36)}`;
  while (values.some((v) => v.includes(boundary)));
  const parts = Object.entries(fields).map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"\r\n\r\n${value}\r\n`,
  );
  return {
    body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`, 'utf8'),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** As WHATWG FormData does: '"', CR and LF in a field name are percent-encoded. */
function escapeName(name: string): string {
  return name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
