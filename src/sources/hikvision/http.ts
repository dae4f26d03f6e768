import type { Readable } from 'node:stream';
import type { Client, Dispatcher } from 'undici';
import { readCappedBody } from '../capped-body.js';
import { cannotAnswerWords, offeredLogins, staleNonceCause } from '../digest-login.js';
import { digestAuthorization, parseDigestChallenge, type DigestChallenge } from '../http-digest.js';
import { HikAuthError, HikChallengeError, HikConnectionError, HikSetupError, HikStaleNonceError } from './errors.js';
import { apiError, describeNetError, lockInfo, type HikResponse } from './http-errors.js';
import { MAX_ANSWER_BYTES } from './limits.js';
import { loadUndiciOr, peerOf, targetUnder, type Undici } from '../undici-http.js';
import { trustingConnector, type TlsTrust } from './tls.js';
import { HeldSecrets } from '../held-secrets.js';

/**
 * HTTP to one Hikvision device on undici, with Digest authentication.
 *
 * undici is loaded on first use only (a box without Hikvision terminals never loads it). It
 * parses HTTP with WebAssembly, which Node's --jitless turns off: that is said plainly
 * (HikSetupError) instead of crashing the process.
 */
export function loadUndici(): Promise<Undici> {
  return loadUndiciOr(
    () =>
      new HikSetupError(
        'Hikvision terminals need WebAssembly (the HTTP client parses with it), and this Node runs without it (--jitless in NODE_OPTIONS): remove --jitless (sudo systemctl edit punchgate)',
      ),
  );
}

export interface HikHttpOptions extends TlsTrust {
  /** The device's base URL (https://192.168.1.64). */
  url: string;
  username: string;
  password: string;
  timeoutMs: number;
  /** Sees every request sent, with its status (tests and the bench count requests). */
  onRequest?: (method: string, path: string, status: number) => void;
}

export type { HikResponse } from './http-errors.js';

export interface HikRequest {
  body?: string;
  contentType?: string;
  signal?: AbortSignal;
}

/** The alert stream carries a heartbeat every few seconds; this long without a byte is a dead link. */
export const STREAM_IDLE_MS = 90_000;

/** The Digest state shared by the connections to one device. */
class DigestState {
  challenge: DigestChallenge | undefined;
  nc = 0;
  /** The current challenge has been answered successfully at least once (with this password). */
  proven = false;
}

export class HikHttp {
  readonly peer: string;
  private readonly base: URL;
  private readonly digest = new DigestState();
  /** The password, taken out of the device's words before they become a message. */
  private readonly held: HeldSecrets;
  private readonly scrub = (text: string) => this.held.scrub(text);
  private client: Client | undefined;
  private streams = new Set<Client>();

  private constructor(
    private readonly undici: Undici,
    private readonly opts: HikHttpOptions,
  ) {
    this.base = new URL(opts.url);
    this.peer = peerOf(this.base);
    this.held = new HeldSecrets(opts.password);
  }

  static async open(opts: HikHttpOptions): Promise<HikHttp> {
    return new HikHttp(await loadUndici(), opts);
  }

  private newClient(bodyTimeout: number): Client {
    const { Client: UndiciClient, buildConnector } = this.undici;
    const t = this.opts.timeoutMs;
    return new UndiciClient(this.base.origin, {
      connect: trustingConnector(buildConnector, this.opts, t, this.peer),
      headersTimeout: t,
      bodyTimeout,
      keepAliveTimeout: 10_000,
      pipelining: 1,
    });
  }

  /** The request target: the url's path prefix (if any) and the ISAPI path. */
  private target(path: string): string {
    return targetUnder(this.base, path);
  }

  private authorization(method: string, uri: string): string | undefined {
    const c = this.digest.challenge;
    if (!c) return undefined;
    return digestAuthorization(c, {
      username: this.opts.username,
      password: this.opts.password,
      method,
      uri,
      nc: ++this.digest.nc,
    });
  }

  /**
   * After a 401: take the new challenge, and say whether to answer it (true) or give up because
   * the password itself was refused (throws). A device counts refusals towards its lock, so a
   * refused password is never sent twice: the request is repeated only when the 401 was the
   * challenge to a request sent without credentials, or the nonce went stale (the server says
   * so, or a nonce that worked before was replaced).
   */
  private onUnauthorized(res: HikResponse, sentAuth: boolean): true {
    const lock = lockInfo(res.text);
    const peer = this.peer;
    if (lock.locked) {
      throw new HikAuthError(
        `${peer} has locked the account "${this.opts.username}" after repeated wrong passwords${lock.unlockSeconds !== undefined ? ` (unlocks in ${Math.ceil(lock.unlockSeconds / 60)} min)` : ''}`,
        true,
        lock.unlockSeconds,
      );
    }
    const c = parseDigestChallenge(res.headers['www-authenticate']);
    if (!c) {
      // Nothing was sent that the device could refuse: said as what it is, never as a refused password.
      const offered = offeredLogins(res.headers['www-authenticate']);
      throw new HikChallengeError(cannotAnswerWords(peer, offered), offered);
    }
    const was = this.digest.challenge;
    const staleNonce = c.stale || (this.digest.proven && was !== undefined && was.nonce !== c.nonce);
    this.digest.challenge = c;
    this.digest.nc = 0;
    this.digest.proven = false;
    if (!sentAuth || staleNonce) return true;
    throw new HikAuthError(
      `${peer} refuses the password of "${this.opts.username}"${lock.triesLeft !== undefined ? ` (${lock.triesLeft} tries left before it locks the account)` : ''}`,
      false,
      undefined,
      lock.triesLeft,
    );
  }

  /** One ISAPI request with Digest authentication. Throws HikAuthError, HikConnectionError, HikTlsError. */
  async request(method: string, path: string, req: HikRequest = {}): Promise<HikResponse> {
    this.client ??= this.newClient(this.opts.timeoutMs);
    const uri = this.target(path);
    // At most: one unauthenticated try (to get the challenge), one answer, one after a stale nonce.
    for (let attempt = 0; ; attempt++) {
      const auth = this.authorization(method, uri);
      const res = await this.send(this.client, method, uri, auth, req);
      if (res.status !== 401) {
        if (auth) this.digest.proven = true;
        return res;
      }
      this.onUnauthorized(res, auth !== undefined);
      if (attempt >= 2) throw staleAgain(this.peer);
    }
  }

  private async send(
    client: Dispatcher,
    method: string,
    uri: string,
    auth: string | undefined,
    req: HikRequest,
  ): Promise<HikResponse> {
    const headers: Record<string, string> = { accept: 'application/json, application/xml;q=0.9, */*;q=0.5' };
    if (auth) headers.authorization = auth;
    if (req.body !== undefined) headers['content-type'] = req.contentType ?? 'application/json';
    let status = 0;
    // A device that trickles its answer byte by byte never trips the idle timeouts: one deadline
    // for the whole exchange.
    const deadline = AbortSignal.timeout(this.opts.timeoutMs * 3);
    try {
      const res = await client.request({
        method: method as Dispatcher.HttpMethod,
        path: uri,
        headers,
        body: req.body,
        signal: req.signal ? AbortSignal.any([req.signal, deadline]) : deadline,
      });
      status = res.statusCode;
      const text = await readCapped(res.body, MAX_ANSWER_BYTES, this.peer, uri, res.headers['content-length']);
      return { status, headers: res.headers, text, scrub: this.scrub };
    } catch (e) {
      if (deadline.aborted && !req.signal?.aborted) {
        throw new HikConnectionError(
          `${this.peer} did not finish its answer within ${Math.round((this.opts.timeoutMs * 3) / 1000)} s`,
          'DEADLINE',
        );
      }
      throw describeNetError(e, this.peer, this.opts.timeoutMs);
    } finally {
      this.opts.onRequest?.(method, uri, status);
    }
  }

  /**
   * Opens a long-lived GET (the alert stream) on its own connection, authenticated like the
   * rest; resolves once the answer's head arrived with status 200. Read `body` until it ends.
   */
  async stream(path: string, signal: AbortSignal): Promise<{ contentType: string; body: Readable; close: () => void }> {
    const client = this.newClient(STREAM_IDLE_MS);
    this.streams.add(client);
    const close = () => {
      this.streams.delete(client);
      void client.destroy().catch(() => undefined);
    };
    const uri = this.target(path);
    try {
      for (let attempt = 0; ; attempt++) {
        const auth = this.authorization('GET', uri);
        const headers: Record<string, string> = {};
        if (auth) headers.authorization = auth;
        let res: Dispatcher.ResponseData;
        try {
          res = await client.request({ method: 'GET', path: uri, headers, signal });
        } catch (e) {
          throw describeNetError(e, this.peer, this.opts.timeoutMs);
        }
        this.opts.onRequest?.('GET', uri, res.statusCode);
        if (res.statusCode === 200) {
          if (auth) this.digest.proven = true;
          const ct = res.headers['content-type'];
          return { contentType: Array.isArray(ct) ? (ct[0] ?? '') : (ct ?? ''), body: res.body, close };
        }
        const text = await readCapped(res.body, 64 * 1024, this.peer, uri).catch(() => '');
        if (res.statusCode !== 401)
          throw apiError({ status: res.statusCode, headers: res.headers, text, scrub: this.scrub }, path);
        this.onUnauthorized({ status: 401, headers: res.headers, text }, auth !== undefined);
        if (attempt >= 2) throw staleAgain(this.peer);
      }
    } catch (e) {
      close();
      throw e;
    }
  }

  async close(): Promise<void> {
    const all = [this.client, ...this.streams].filter((c): c is Client => c !== undefined);
    this.client = undefined;
    this.streams.clear();
    await Promise.all(all.map((c) => c.close().catch(() => c.destroy().catch(() => undefined))));
  }

  /** Tears every connection down at once (shutdown). */
  destroy(): void {
    const all = [this.client, ...this.streams].filter((c): c is Client => c !== undefined);
    this.client = undefined;
    this.streams.clear();
    for (const c of all) void c.destroy().catch(() => undefined);
  }
}

/**
 * The answer's body, read up to `max` bytes and no further: an answer that says (Content-Length)
 * or turns out to be larger is refused at once, without buffering it, with an error naming it.
 */
async function readCapped(
  body: Readable,
  max: number,
  peer: string,
  uri: string,
  declared?: string | string[],
): Promise<string> {
  const what = uri.split('?')[0];
  return readCappedBody(
    body,
    max,
    declared,
    () =>
      new HikConnectionError(
        `${peer} sent an answer of more than ${Math.round(max / 1024)} kB to ${what} (a page of events is about 20 kB): not read further`,
        'ANSWER_TOO_LARGE',
      ),
  );
}

/**
 * The third 401 in a row: the two before were answered, and each was a new nonce marked stale
 * (a refusal throws in onUnauthorized). Kept as a refusal (a password was sent), said as it is.
 */
const staleAgain = (peer: string) => new HikStaleNonceError(staleNonceCause(peer));
