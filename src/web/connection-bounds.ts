import type { Socket } from 'node:net';

/**
 * Who may hold the status server's connections (issue 30): the box itself (loopback: systemd's
 * probes, `punchgate status`, a local scraper) has its own reserve, which the LAN cannot take;
 * one LAN address holds few at once; and when the LAN's share is full, a newcomer takes the
 * place of the oldest connection that is not serving a request (an idle keep-alive, a client
 * that connected and said nothing, half a header). So 70 machines holding connections open
 * cannot keep `/readyz`, `/metrics` or the page from the box or from a scraper elsewhere: its
 * request is served while theirs wait for a header they never finish.
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
}

export class ConnectionBounds {
  /** Open connections, oldest first (a Map keeps insertion order). */
  private readonly open = new Map<Socket, Held>();
  private loopback = 0;
  private lan = 0;
  private readonly perAddress = new Map<string, number>();

  constructor(private readonly limits: ConnectionLimits = STATUS_CONNECTION_LIMITS) {}

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
      } else if (this.lan >= this.limits.lan && !this.evict((h) => !isLoopback(h.address))) return this.refuse(socket);
      this.lan++;
      this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
    }
    this.open.set(socket, { socket, address, busy: false });
    socket.once('close', () => this.forget(socket));
    return true;
  }

  /** A request arrived on the connection: it is not taken away while it is served. */
  busy(socket: Socket, busy: boolean): void {
    const h = this.open.get(socket);
    if (h) h.busy = busy;
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
      this.forget(h.socket);
      h.socket.destroy();
      return true;
    }
    return false;
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
