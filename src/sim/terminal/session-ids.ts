/**
 * Session ids: non-zero u16 values handed out in turn. 1 is skipped as well: it is the
 * session field of a real-time event (EF_ATTLOG), and a client should never mistake the two.
 */
export class SessionIds {
  private next: number;

  constructor(start = 0x4a2c) {
    this.next = start & 0xffff;
  }

  take(): number {
    while (this.next === 0 || this.next === 1) this.next = (this.next + 1) & 0xffff;
    const id = this.next;
    this.next = (this.next + 1) & 0xffff;
    return id;
  }
}
