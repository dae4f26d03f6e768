/**
 * The CMD_DATA packets of one chunk, joined in the terminal's order. Terminals number the packets
 * of a chunk 0, 1, 2... in the header's session field (the recorded DATA packets of one chunk in
 * fananimi/pyzk test.py carry 0 to 5); over UDP they may arrive in another order, and joined as
 * they came the records across them turned into other users at other times. When the numbers
 * received are exactly 0..n-1 the packets are joined by number; otherwise (firmware that puts
 * something else there) as they came, which is the terminal's order on TCP.
 */
export class ChunkPackets {
  private readonly parts: { index: number; data: Buffer }[] = [];
  /** Data bytes received so far. */
  bytes = 0;

  add(index: number, data: Buffer): void {
    this.parts.push({ index, data: Buffer.from(data) });
    this.bytes += data.length;
  }

  /** The chunk's bytes, in the terminal's order. */
  join(): Buffer {
    const parts = this.numbered() ? [...this.parts].sort((a, b) => a.index - b.index) : this.parts;
    return Buffer.concat(
      parts.map((p) => p.data),
      this.bytes,
    );
  }

  private numbered(): boolean {
    const seen = new Set(this.parts.map((p) => p.index));
    return seen.size === this.parts.length && this.parts.every((p) => p.index < this.parts.length);
  }
}
