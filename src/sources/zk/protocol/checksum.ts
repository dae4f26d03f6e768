/**
 * The device checksum (adrobinoga): one's-complement of the u16 LE word sum of header
 * (checksum field zero) and data; an odd tail byte is added as-is.
 */
export function zkChecksum(buf: Buffer): number {
  let s = 0;
  const even = buf.length & ~1;
  for (let i = 0; i < even; i += 2) s += buf.readUInt16LE(i);
  if (buf.length & 1) s += buf[buf.length - 1] ?? 0;
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return ~s & 0xffff;
}
