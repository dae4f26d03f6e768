import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy before a device simulator that makes the connections open now go silent and then
 * cuts them, as a NAT or a firewall that forgot a long connection does: what the device sends on
 * them meanwhile is lost. Connections made after the cut are passed through as they are.
 */
export interface StallingProxy {
  readonly port: number;
  /**
   * The device's bytes on the connections open now whose last request line contains `request`
   * (all when omitted) are lost from here on; returns how many connections.
   */
  stall(request?: string): number;
  /** Bytes lost by stall so far. */
  lost(): number;
  /** Closes the connections that were stalled. */
  cut(): void;
  stop(): Promise<void>;
}

export async function stallingProxy(target: number): Promise<StallingProxy> {
  const open = new Set<{ client: Socket; up: Socket; silent: boolean; request: string }>();
  let lost = 0;
  const server: Server = createServer((client) => {
    const up = connect(target, '127.0.0.1');
    const link = { client, up, silent: false, request: '' };
    open.add(link);
    for (const s of [client, up]) s.on('error', () => {});
    client.on('data', (b: Buffer) => {
      // The request line of each request on the connection (keep-alive: the last one counts).
      const line = /^[A-Z]+ \S+ HTTP\/1\.[01]\r\n/.exec(b.toString('latin1'));
      if (line) link.request = line[0];
      up.write(b);
    });
    up.on('data', (b: Buffer) => {
      if (link.silent) lost += b.length;
      else client.write(b);
    });
    // An end is passed on as an end: what was written before it still arrives.
    client.on('end', () => up.end());
    up.on('end', () => client.end());
    client.on('close', () => (up.destroy(), open.delete(link)));
    up.on('close', () => {
      if (!client.writableEnded) client.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    stall: (request) => {
      let n = 0;
      for (const link of open)
        if (request === undefined || link.request.includes(request)) {
          link.silent = true;
          n++;
        }
      return n;
    },
    lost: () => lost,
    cut: () => {
      for (const link of open) if (link.silent) link.client.destroy();
    },
    stop: () => {
      for (const link of open) link.client.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
