/**
 * A TCP proxy before a terminal simulator that reshapes the byte stream from the terminal, as
 * networks do: held and released in pieces cut where a test says (several packets in one read, a
 * packet across two reads), or written one byte at a time.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

export interface ReshapingProxy {
  readonly port: number;
  /** While true, the terminal's bytes are held (see release). */
  hold: boolean;
  /** Every byte from the terminal written on its own, a turn of the event loop apart. */
  byteByByte: boolean;
  /** Bytes held so far. */
  held(): number;
  /** Writes what is held in pieces cut at `cuts` (byte offsets), each piece a write of its own. */
  release(cuts: number[]): Promise<void>;
  stop(): Promise<void>;
}

/** Lets the bytes of one write reach the peer (and be read) before the next write. */
const turn = () => new Promise((r) => setTimeout(r, 5));

export async function reshapingProxy(target: number): Promise<ReshapingProxy> {
  const sockets = new Set<Socket>();
  const held: Buffer[] = [];
  let down: Socket | undefined;
  let trickle = Promise.resolve();
  const server: Server = createServer((client) => {
    down = client;
    client.setNoDelay(true);
    const up = connect(target, '127.0.0.1');
    for (const s of [client, up]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(up);
    up.on('data', (b: Buffer) => {
      if (proxy.hold) held.push(b);
      else if (proxy.byteByByte)
        trickle = trickle.then(async () => {
          for (const byte of b) {
            if (client.destroyed) return;
            client.write(Buffer.from([byte]));
            await new Promise((r) => setImmediate(r));
          }
        });
      else client.write(b);
    });
    client.on('close', () => up.destroy());
    up.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const proxy: ReshapingProxy = {
    port: (server.address() as AddressInfo).port,
    hold: false,
    byteByByte: false,
    held: () => Buffer.concat(held).length,
    async release(cuts) {
      const all = Buffer.concat(held.splice(0));
      proxy.hold = false;
      let from = 0;
      for (const at of [...cuts, all.length]) {
        down?.write(all.subarray(from, at));
        from = at;
        await turn();
      }
    },
    stop: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
  return proxy;
}
