import { Agent, request } from 'node:http';

/** How one request of the simulated terminal ends. */
export type SimAnswer = { kind: 'answer'; status: number; body: string } | { kind: 'failed'; reason: string };

export interface SimRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  timeoutMs: number;
  /** Hang up after half the body. */
  dropMidBody?: boolean;
  /** Send the whole body, then hang up without reading the answer. */
  hangUpBeforeAnswer?: boolean;
  /** More headers (Cookie, Connection: close). */
  headers?: Record<string, string>;
  /** Send a body without a Content-Type, as some firmware does. */
  noContentType?: boolean;
}

/**
 * The simulated terminal's HTTP side: one keep-alive connection at a time, as a terminal has,
 * with the faults a flaky network or firmware produces.
 */
export class SimHttp {
  private readonly agent: Agent;
  private readonly base: URL;
  /** Connections opened so far (keep-alive reuses one while the server keeps it). */
  connections = 0;

  /** `localAddress`: the address to send from (another loopback address such as 127.0.0.2, to play another device). */
  constructor(server: string, localAddress?: string) {
    this.base = new URL(server);
    this.agent = new Agent({ keepAlive: true, maxSockets: 1, ...(localAddress ? { localAddress } : {}) });
  }

  send(r: SimRequest): Promise<SimAnswer> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (a: SimAnswer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(a);
      };
      const body = r.body === undefined ? undefined : Buffer.from(r.body, 'utf8');
      const req = request({
        host: this.base.hostname,
        port: this.base.port || 80,
        method: r.method,
        path: r.path,
        agent: this.agent,
        headers: {
          'User-Agent': 'iClock Proxy/1.09',
          ...(body ? { 'Content-Length': String(body.length) } : {}),
          ...(body && !r.noContentType ? { 'Content-Type': 'text/plain' } : {}),
          ...r.headers,
        },
      });
      const timer = setTimeout(() => {
        req.destroy();
        finish({ kind: 'failed', reason: `no answer within ${r.timeoutMs} ms` });
      }, r.timeoutMs);
      req.on('socket', () => {
        if (!req.reusedSocket) this.connections++;
      });
      req.on('error', (e) => finish({ kind: 'failed', reason: (e as NodeJS.ErrnoException).code ?? e.message }));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          finish({ kind: 'answer', status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', () => finish({ kind: 'failed', reason: 'answer cut off' }));
      });
      if (!body) return void req.end();
      if (r.dropMidBody) {
        req.write(body.subarray(0, Math.floor(body.length / 2)), () => {
          req.destroy();
          finish({ kind: 'failed', reason: 'hung up mid-body (fault)' });
        });
        return;
      }
      req.end(body, () => {
        if (!r.hangUpBeforeAnswer) return;
        req.destroy();
        finish({ kind: 'failed', reason: 'hung up before the answer (fault)' });
      });
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
