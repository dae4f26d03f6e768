/**
 * CMD_AUTH payload from the comm key (A8, pyzk make_commkey from zkemsdk).
 * The result is sent on the wire; the key itself must never be logged.
 */
export function makeCommKey(key: number, sessionId: number, ticks = 50): Buffer {
  const k0 = key >>> 0;
  let k = 0;
  for (let i = 0; i < 32; i++) k = ((k << 1) | ((k0 >>> i) & 1)) >>> 0;
  k = (k + (sessionId >>> 0)) >>> 0;
  const b = Buffer.alloc(4);
  b.writeUInt32LE(k, 0);
  const c = [b[0]! ^ 0x5a, b[1]! ^ 0x4b, b[2]! ^ 0x53, b[3]! ^ 0x4f]; // 'Z' 'K' 'S' 'O'
  const d = [c[2]!, c[3]!, c[0]!, c[1]!]; // swap the 16-bit halves
  const t = ticks & 0xff;
  return Buffer.from([d[0]! ^ t, d[1]! ^ t, t, d[3]! ^ t]);
}
