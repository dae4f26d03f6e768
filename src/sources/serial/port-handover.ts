import type { SerialLink, SerialLinkHandlers, SerialLinkOptions } from './port.js';

/**
 * Where a device's bytes go: the reader that holds it now. A link is opened with a route's
 * handlers, so that a reader restarted by a reload can take the open device over.
 */
export class LinkRoute {
  constructor(public target: SerialLinkHandlers) {}

  readonly handlers: SerialLinkHandlers = {
    onData: (chunk) => this.target.onData(chunk),
    onClose: (err) => this.target.onClose(err),
  };
}

/** An open device waiting for the reader that replaces the one that let it go. */
interface Parked {
  link: SerialLink;
  route: LinkRoute;
  settings: string;
  chunks: Buffer[];
  size: number;
  closed: boolean;
  timer: NodeJS.Timeout;
}

/** Bytes kept while parked before the device is paused (the kernel then keeps what follows). */
const PARKED_BYTES = 64 * 1024;
/** A parked device no reader took within this time (its terminal went away) is closed. */
const PARKED_MS = 10_000;

const settingsOf = (o: SerialLinkOptions) => JSON.stringify([o.path, o.baudRate, o.dataBits, o.parity, o.stopBits]);

/**
 * Keeps a serial device open while its reader is restarted (a reload that changed the terminal's
 * pattern, code map, time format...). Closing the device dropped what the reader printed in
 * between: the kernel empties a tty's input on its last close, and the line being read was cut in
 * two (its head lost with the old reader, its tail refused by the new one). The old reader parks
 * the open device with the bytes of its unfinished line; the new one takes it, with everything
 * that arrived meanwhile, when it reads the same path with the same line settings. Otherwise (a
 * new baud rate, another path, maybe another name of the same device) the parked device is closed
 * first, so the device can be opened anew. Parked under the terminal's name: only its own next
 * reader takes it.
 */
export class SerialPortHandover {
  private readonly parked = new Map<string, Parked>();

  park(terminal: string, options: SerialLinkOptions, link: SerialLink, route: LinkRoute, unfinished: Buffer): void {
    void this.release(terminal);
    const p: Parked = {
      link,
      route,
      settings: settingsOf(options),
      chunks: unfinished.length > 0 ? [unfinished] : [],
      size: unfinished.length,
      closed: false,
      timer: setTimeout(() => void this.release(terminal), PARKED_MS),
    };
    p.timer.unref();
    route.target = {
      onData: (chunk) => {
        p.chunks.push(chunk);
        p.size += chunk.length;
        if (p.size >= PARKED_BYTES) link.pause();
      },
      onClose: () => {
        p.closed = true;
      },
    };
    this.parked.set(terminal, p);
  }

  /**
   * The device parked for `terminal`, if its path and line settings are `options`: from now on its bytes go to
   * `handlers`; `pending` are the bytes it gave while parked (the old reader's unfinished line first).
   */
  async take(
    terminal: string,
    options: SerialLinkOptions,
    handlers: SerialLinkHandlers,
  ): Promise<{ link: SerialLink; route: LinkRoute; pending: Buffer } | undefined> {
    const p = this.parked.get(terminal);
    if (!p) return undefined;
    if (p.closed || p.settings !== settingsOf(options)) {
      await this.release(terminal);
      return undefined;
    }
    this.parked.delete(terminal);
    clearTimeout(p.timer);
    p.route.target = handlers;
    return { link: p.link, route: p.route, pending: Buffer.concat(p.chunks) };
  }

  /** Closes the device parked for `terminal`, if any. */
  async release(terminal: string): Promise<void> {
    const p = this.parked.get(terminal);
    if (!p) return;
    this.parked.delete(terminal);
    clearTimeout(p.timer);
    await p.link.close();
  }
}
