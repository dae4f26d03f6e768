import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { HrmsConfig } from '../config/schema.js';

/**
 * The HTTP client of the HRMS calls, on Node's own http/https modules.
 *
 * Why not undici: on Node 20 loading undici and opening its first connection costs about
 * 24 MB of resident memory (its web stack, Node's own bundled copy pulled in by a global it
 * touches, and the llhttp parser compiled from WebAssembly), against about 4 MB for node:http,
 * whose parser is native. The daemon's idle budget is 60 MB in all, and it sends one
 * request at a time: node:http's keep-alive pool is all it needs.
 * (undici stays a dev dependency: the tests' independent client and the bench baseline.)
 */

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface HttpCall {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
}

/**
 * Codes of our own failures (node's own codes, ECONNREFUSED and so on, pass through):
 * CONNECT_TIMEOUT: no connection within connectTimeoutMs (nothing was sent);
 * DEADLINE: no complete answer within connectTimeoutMs + timeoutMs;
 * ABORTED: the caller's signal; RESPONSE_TOO_LARGE: an answer over MAX_RESPONSE_BYTES.
 */
export class HttpError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** An attendance answer is ~100 bytes per punch; an employee list of 10,000 is a few MB. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export type HrmsHttpConfig = Pick<HrmsConfig, 'timeoutMs' | 'connectTimeoutMs' | 'caFile'>;

/** One keep-alive connection pool to the HRMS, with the deadlines of the config. */
export class HrmsHttp {
  private readonly http = new HttpAgent({ keepAlive: true, maxSockets: 2 });
  private readonly https: HttpsAgent;

  constructor(private readonly cfg: HrmsHttpConfig) {
    // A private CA (`hrms.caFile`), when set, is the only CA trusted for the HRMS: an internal
    // HRMS usually has its own.
    const ca = cfg.caFile ? readFileSync(cfg.caFile, 'utf8') : undefined;
    this.https = new HttpsAgent({ keepAlive: true, maxSockets: 2, ...(ca ? { ca } : {}) });
  }

  /**
   * The whole exchange, body read; failures reject with the error's code kept. No retry here:
   * a failed POST may have reached the HRMS, and the deliverer decides what happens next.
   */
  request(call: HttpCall): Promise<HttpResponse> {
    const { connectTimeoutMs, timeoutMs } = this.cfg;
    const url = new URL(call.url);
    const tls = url.protocol === 'https:';
    const headers = { ...call.headers };
    if (call.body !== undefined) headers['content-length'] = String(Buffer.byteLength(call.body));
    if (call.signal?.aborted) return Promise.reject(new HttpError('request aborted', 'ABORTED'));
    return new Promise<HttpResponse>((resolve, reject) => {
      const options = { method: call.method, headers, agent: tls ? this.https : this.http };
      const req = (tls ? httpsRequest : httpRequest)(url, options, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES)
            finish(new HttpError(`answer larger than ${MAX_RESPONSE_BYTES} bytes`, 'RESPONSE_TOO_LARGE'));
          else chunks.push(c);
        });
        res.on('end', () =>
          finish(undefined, {
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', (e) => finish(e));
        res.on('close', () => {
          if (!res.complete)
            finish(Object.assign(new Error('the HRMS closed the connection mid-answer'), { code: 'ECONNRESET' }));
        });
      });

      let settled = false;
      const timers: NodeJS.Timeout[] = [];
      const finish = (err: Error | undefined, res?: HttpResponse) => {
        if (settled) return;
        settled = true;
        for (const t of timers) clearTimeout(t);
        call.signal?.removeEventListener('abort', onAbort);
        if (err) {
          req.destroy();
          reject(err);
        } else resolve(res!);
      };
      const onAbort = () => finish(new HttpError('request aborted', 'ABORTED'));
      call.signal?.addEventListener('abort', onAbort, { once: true });
      const deadline = connectTimeoutMs + timeoutMs;
      timers.push(
        setTimeout(
          () => finish(new HttpError(`timeout: no complete answer within ${deadline} ms`, 'DEADLINE')),
          deadline,
        ),
      );
      req.on('error', (e) => finish(e));
      req.on('socket', (socket: Socket) => {
        if (!socket.connecting) return; // a kept-alive socket: already connected
        const t = setTimeout(
          () =>
            finish(new HttpError(`connect timeout: no connection within ${connectTimeoutMs} ms`, 'CONNECT_TIMEOUT')),
          connectTimeoutMs,
        );
        timers.push(t);
        socket.once(tls ? 'secureConnect' : 'connect', () => clearTimeout(t));
      });
      req.end(call.body);
    });
  }

  /** Closes the kept-alive sockets (an exchange still running fails with a reset). */
  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

/** `{base_url}` + path, keeping any path prefix of the base URL. */
export function hrmsUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}
