import type { Socket } from 'node:net';

/**
 * Who may hold the status server's connections (issue 30): the box itself (loopback: systemd's
 * probes, `punchgate status`, a local scraper) has its own reserve, which the LAN cannot take;
 * one LAN address holds few at once; and when the LAN's share is full, a newcomer takes the
 * place of the oldest connection that is not serving a request (an idle keep-alive, a client
 * that connected and said nothing, half a header). So 70 machines holding connections open
 * cannot keep `/readyz`, `/metrics` or the page from the box or from a scraper elsewhere: its
 * request is served while theirs wait for a header they never finish.
 *
 * A connection put out that never sent a whole request benches its address for a while (1 s,
 * doubling on each repeat up to a minute): in that time the address may take a free place but
 * not put out another's. Without it, holders that come back at once when put out take turns
 * putting each other out so fast that a scraper's fresh connection reaches the oldest end and
 * is put out before its request is read (the test saw "socket hang up").
 */
export interface ConnectionLimits {
  /** Connections of loopback clients at once (beside the LAN's). */
  loopback: number;
  /** Connections of all other clients at once. */
  lan: number;
  /** Connections of one other address at once. */
  perAddress: number;
}

export const STATUS_CONNECTION_LIMITS: ConnectionLimits = { loopback: 16, lan: 48, perAddress: 4 };

/** The first bench of an address, and the longest. */
const BENCH_FIRST_MS = 1_000;
const BENCH_MAX_MS = 60_000;
/** Benched addresses remembered at most (the oldest is forgotten first): a LAN of strangers stays bounded. */
const BENCHED_KEPT = 4_096;

/**
 * The box itself: its loopback address as clients on the box send from it. (Other 127/8
 * addresses are the box too, but only a program that chose one on purpose sends from them: they
 * share the LAN's bounds, which is also how the tests play other machines.)
 */
const isLoopback = (address: string) => address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';

interface Held {
  socket: Socket;
  address: string;
  busy: boolean;
  /** It has sent a whole request at least once (an idle keep-alive, not a holder). */
  served: boolean;
}

interface Bench {
  until: number;
  /** The next bench's length. */
  nextMs: number;
}

export class ConnectionBounds {
  /** Open connections, oldest first (a Map keeps insertion order). */
  private readonly open = new Map<Socket, Held>();
  private loopback = 0;
  private lan = 0;
  private readonly perAddress = new Map<string, number>();
  private readonly benched = new Map<string, Bench>();

  constructor(
    private readonly limits: ConnectionLimits = STATUS_CONNECTION_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new connection: kept (true) or destroyed here (false). */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? '';
    if (isLoopback(address)) {
      if (this.loopback >= this.limits.loopback && !this.evict((h) => isLoopback(h.address)))
        return this.refuse(socket);
      this.loopback++;
    } else {
      if ((this.perAddress.get(address) ?? 0) >= this.limits.perAddress) {
        // Its own oldest idle one goes, or the newcomer.
        if (!this.evict((h) => h.address === address)) return this.refuse(socket);
      } else if (this.lan >= this.limits.lan && (this.isBenched(address) || !this.evict((h) => !isLoopback(h.address))))
        return this.refuse(socket);
      this.lan++;
      this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
    }
    this.open.set(socket, { socket, address, busy: false, served: false });
    socket.once('close', () => this.forget(socket));
    return true;
  }

  /** A request arrived on the connection: it is not taken away while it is served. */
  busy(socket: Socket, busy: boolean): void {
    const h = this.open.get(socket);
    if (!h) return;
    h.busy = busy;
    if (busy) h.served = true;
  }

  /** Connections open now: loopback and others. */
  counts(): { loopback: number; lan: number } {
    return { loopback: this.loopback, lan: this.lan };
  }

  private refuse(socket: Socket): false {
    socket.destroy();
    return false;
  }

  /** Closes the oldest idle connection `which` accepts; false when there is none. */
  private evict(which: (h: Held) => boolean): boolean {
    for (const h of this.open.values()) {
      if (h.busy || !which(h)) continue;
      if (!h.served && !isLoopback(h.address)) this.bench(h.address);
      this.forget(h.socket);
      h.socket.destroy();
      return true;
    }
    return false;
  }

  private isBenched(address: string): boolean {
    return (this.benched.get(address)?.until ?? 0) > this.now();
  }

  /** Benches `address`: longer each time, back to the first length once a long bench has passed unrepeated. */
  private bench(address: string): void {
    const now = this.now();
    const last = this.benched.get(address);
    const ms = last && now - last.until < BENCH_MAX_MS ? last.nextMs : BENCH_FIRST_MS;
    this.benched.delete(address); // re-inserted last: the Map's order is the order of benching
    this.benched.set(address, { until: now + ms, nextMs: Math.min(ms * 2, BENCH_MAX_MS) });
    if (this.benched.size > BENCHED_KEPT) this.benched.delete(this.benched.keys().next().value!);
  }

  private forget(socket: Socket): void {
    const h = this.open.get(socket);
    if (!h) return;
    this.open.delete(socket);
    if (isLoopback(h.address)) this.loopback--;
    else {
      this.lan--;
      const n = (this.perAddress.get(h.address) ?? 1) - 1;
      if (n <= 0) this.perAddress.delete(h.address);
      else this.perAddress.set(h.address, n);
    }
  }
}
