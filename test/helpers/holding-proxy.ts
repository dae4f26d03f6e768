import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HRMS whose answers wait for the test: a proxy in front of the HRMS simulator that forwards
 * each request at once (the simulator records its punches) and holds the answer until
 * `releaseNext` (or, once `passThrough` is set, answers at once). Shows what a deliverer does
 * while a request is on the wire.
 */
export interface HoldingProxy {
  url: string;
  /** Requests received so far. */
  received(): number;
  /** Answers waiting to be released. */
  held(): number;
  /** Sends the oldest held answer. */
  releaseNext(): void;
  /** From now on answers go out at once; those held go now. */
  passThrough(): void;
  stop(): Promise<void>;
}

export async function startHoldingProxy(targetUrl: string): Promise<HoldingProxy> {
  const waiting: (() => void)[] = [];
  let received = 0;
  let pass = false;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received++;
      const headers: Record<string, string> = {};
      for (const k of ['content-type', 'authorization', 'accept'])
        if (typeof req.headers[k] === 'string') headers[k] = req.headers[k];
      void fetch(new URL(req.url ?? '/', targetUrl), {
        method: req.method ?? 'POST',
        headers,
        body: Buffer.concat(chunks),
      })
        .then(async (r) => ({
          status: r.status,
          type: r.headers.get('content-type') ?? 'application/json',
          text: await r.text(),
        }))
        .catch((e: unknown) => ({ status: 502, type: 'text/plain', text: String(e) }))
        .then((answer) => {
          const send = () => {
            if (res.destroyed) return;
            res.writeHead(answer.status, { 'content-type': answer.type });
            res.end(answer.text);
          };
          if (pass) send();
          else waiting.push(send);
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    held: () => waiting.length,
    releaseNext: () => waiting.shift()?.(),
    passThrough: () => {
      pass = true;
      for (const send of waiting.splice(0)) send();
    },
    stop: async () => {
      pass = true;
      for (const send of waiting.splice(0)) send();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
