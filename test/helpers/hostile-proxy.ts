import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy that misbehaves at the CONNECT, one connection at a time as the test scripts:
 * `close` drops the connection before answering, `silent` takes it and never answers, `pass`
 * answers 200 and opens a real tunnel to the host asked for, a number answers the CONNECT with that
 * HTTP status (502: the proxy cannot reach the host). The last step of the script repeats.
 */
export type ProxyStep = 'close' | 'silent' | 'pass' | number;

export interface HostileProxy {
  url: string;
  /** Connections taken so far. */
  connections(): number;
  /** Proxy-Authorization values received. */
  credentials: string[];
  stop(): Promise<void>;
}

export async function startHostileProxy(script: ProxyStep[]): Promise<HostileProxy> {
  const steps = [...script];
  const credentials: string[] = [];
  const open = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((client) => {
    connections++;
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    const step = steps.length > 1 ? steps.shift()! : steps[0]!;
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const auth = /^proxy-authorization: *(.*)$/im.exec(head.slice(0, end));
      if (auth) credentials.push(auth[1]!.trim());
      if (step === 'close') client.destroy();
      if (typeof step === 'number') client.end(`HTTP/1.1 ${step} Proxy Says No\r\ncontent-length: 0\r\n\r\n`);
      if (step !== 'pass') return;
      const target = /^CONNECT ([^ ]+)/.exec(head)![1]!;
      const colon = target.lastIndexOf(':');
      const upstream = connect(Number(target.slice(colon + 1)), target.slice(0, colon), () => {
        client.write('HTTP/1.1 200 Connection established\r\n\r\n');
        const rest = Buffer.from(head.slice(end + 4), 'latin1');
        if (rest.length) upstream.write(rest);
        client.pipe(upstream).pipe(client);
      });
      open.add(upstream);
      upstream.on('close', () => {
        open.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    credentials,
    stop: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
