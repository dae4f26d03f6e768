import type { Readable } from 'node:stream';
import type { Client } from 'undici';
import { readCappedBody } from '../capped-body.js';
import { netErrorText, routeWords, undiciWords } from '../net-error-words.js';
import { BioConnectionError, BioSetupError } from './errors.js';
import { MAX_ANSWER_BYTES } from './limits.js';
import { loadUndiciOr, peerOf, targetUnder, type Undici } from '../undici-http.js';

/**
 * Plain HTTP(S) to one ZKBioTime server on undici, one keep-alive connection, every exchange
 * bounded: a deadline for the whole answer (a server that trickles never trips the idle
 * timeouts) and a size cap (an answer larger than MAX_ANSWER_BYTES is refused unread).
 * undici is loaded on first use (a box without a BioTime server never loads it).
 */
function loadUndici(): Promise<Undici> {
  return loadUndiciOr(
    () =>
      new BioSetupError(
        'a BioTime server needs WebAssembly (the HTTP client parses with it), and this Node runs without it (--jitless in NODE_OPTIONS): remove --jitless (sudo systemctl edit punchgate)',
      ),
  );
}

export interface BioResponse {
  status: number;
  text: string;
}

export interface BioHttpOptions {
  /** The server's base URL (http://192.168.1.20:8081, maybe with a path prefix). */
  baseUrl: string;
  timeoutMs: number;
  /** A CA (PEM) for a server with its own certificate. */
  ca?: Buffer;
  /** Sees every request sent, with its status (tests and the bench count requests). */
  onRequest?: (method: string, path: string, status: number) => void;
}

export class BioHttp {
  readonly peer: string;
  private readonly base: URL;
  private client: Client | undefined;

  private constructor(
    private readonly undici: Undici,
    private readonly opts: BioHttpOptions,
  ) {
    this.base = new URL(opts.baseUrl);
    this.peer = peerOf(this.base);
  }

  static async open(opts: BioHttpOptions): Promise<BioHttp> {
    return new BioHttp(await loadUndici(), opts);
  }

  /** The request target: the base URL's path prefix (if any) and the API path. */
  target(path: string): string {
    return targetUnder(this.base, path);
  }

  /** One request; the answer read whole (within the bounds). Throws BioConnectionError. */
  async request(
    method: 'GET' | 'POST',
    path: string,
    req: { authorization?: string; json?: unknown; signal?: AbortSignal } = {},
  ): Promise<BioResponse> {
    const t = this.opts.timeoutMs;
    this.client ??= new this.undici.Client(this.base.origin, {
      headersTimeout: t,
      bodyTimeout: t,
      keepAliveTimeout: 10_000,
      pipelining: 1,
      connect: { timeout: t, ...(this.opts.ca ? { ca: this.opts.ca } : {}) },
    });
    const uri = this.target(path);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (req.authorization) headers.authorization = req.authorization;
    if (req.json !== undefined) headers['content-type'] = 'application/json';
    const deadline = AbortSignal.timeout(t * 3);
    let status = 0;
    try {
      const res = await this.client.request({
        method,
        path: uri,
        headers,
        body: req.json === undefined ? undefined : JSON.stringify(req.json),
        signal: req.signal ? AbortSignal.any([req.signal, deadline]) : deadline,
      });
      status = res.statusCode;
      const text = await readCapped(res.body, MAX_ANSWER_BYTES, this.peer, uri, res.headers['content-length']);
      return { status, text };
    } catch (e) {
      if (deadline.aborted && !req.signal?.aborted) {
        this.destroy();
        throw new BioConnectionError(
          `${this.peer} did not finish its answer within ${Math.round((t * 3) / 1000)} s`,
          'DEADLINE',
        );
      }
      if (e instanceof BioConnectionError) {
        this.destroy();
        throw e;
      }
      throw describeNetError(e, this.peer, t);
    } finally {
      this.opts.onRequest?.(method, uri, status);
    }
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    await c?.close().catch(() => c.destroy().catch(() => undefined));
  }

  destroy(): void {
    const c = this.client;
    this.client = undefined;
    void c?.destroy().catch(() => undefined);
  }
}

/** What Node and undici say about a failed connection, in words. */
function describeNetError(e: unknown, peer: string, timeoutMs: number): Error {
  if ((e as { name?: string }).name === 'AbortError') return e as Error;
  const { text, code } = netErrorText(e, peer, {
    ECONNREFUSED: `${peer} refused the connection (nothing listens there: check baseUrl, and that the BioTime service runs)`,
    ...routeWords(peer),
    ...undiciWords(peer, timeoutMs),
    EPROTO: `${peer} does not speak TLS there (is baseUrl http:// rather than https://?)`,
  });
  return new BioConnectionError(text, code);
}

/** The body, read up to `max` bytes and no further (a larger answer is refused, not buffered). */
async function readCapped(
  body: Readable,
  max: number,
  peer: string,
  uri: string,
  declared?: string | string[],
): Promise<string> {
  return readCappedBody(
    body,
    max,
    declared,
    () =>
      new BioConnectionError(
        `${peer} sent an answer of more than ${Math.round(max / 1024)} kB to ${uri.split('?')[0]} (a page of 1,000 transactions is about 400 kB): not read further`,
        'ANSWER_TOO_LARGE',
      ),
  );
}
