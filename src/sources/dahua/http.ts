import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { digestAuthorization, parseDigestChallenge, type DigestChallenge } from '../http-digest.js';
import { cannotAnswerWords, offeredLogins, staleNonceCause } from '../digest-login.js';
import { netErrorText, routeWords } from '../net-error-words.js';
import { DahuaAuthError, DahuaChallengeError, DahuaConnectionError, DahuaStaleNonceError } from './errors.js';
import { ANSWER_DEADLINE_TIMEOUTS, MAX_ANSWER_BYTES } from './limits.js';
import { HeldSecrets } from '../held-secrets.js';

/**
 * HTTP to one Dahua device with Digest authentication (MD5 or SHA-256, whichever is the
 * strongest the device offers), one keep-alive connection, a deadline and a size bound on every
 * answer. Node's own http client: nothing to load, no WebAssembly needed.
 */
export interface DahuaHttpOptions {
  host: string;
  port: number;
  tls: boolean;
  /** `AB:CD:...` (as the config normalises it): the only certificate accepted. */
  tlsFingerprint?: string;
  username: string;
  password: string;
  timeoutMs: number;
  /** Sees every request sent, with its status (tests and the bench count requests). */
  onRequest?: (method: string, path: string, status: number) => void;
}

export interface DahuaResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /**
   * Takes the secrets the client holds (the password it sent) out of the device's words before
   * they become a message (HeldSecrets#scrub): a device may quote back what it was sent.
   */
  scrub?: (text: string) => string;
}

/** The device's words in a message: the secrets its client holds taken out (DahuaResponse#scrub). */
export function wordsOf(res: DahuaResponse, words: string): string {
  return res.scrub ? res.scrub(words) : words;
}

export interface DahuaRequest {
  body?: string;
  contentType?: string;
  signal?: AbortSignal;
  /** A larger bound for this answer (a user list). */
  maxBytes?: number;
}

export class DahuaHttp {
  readonly peer: string;
  private readonly agent: http.Agent;
  private challenge: DigestChallenge | undefined;
  private nc = 0;
  /** The current challenge has been answered successfully at least once. */
  private proven = false;
  private readonly streams = new Set<IncomingMessage>();
  /** The password, taken out of the device's words before they become a message. */
  private readonly held: HeldSecrets;
  private readonly scrub = (text: string) => this.held.scrub(text);

  constructor(private readonly o: DahuaHttpOptions) {
    this.peer = `${o.host}:${o.port}`;
    this.held = new HeldSecrets(o.password);
    const agentOpts = { keepAlive: true, maxSockets: 1, keepAliveMsecs: 10_000 };
    this.agent = o.tls
      ? new https.Agent({
          ...agentOpts,
          // A pinned certificate is checked below, on every connection; else the system's CAs.
          rejectUnauthorized: o.tlsFingerprint === undefined,
          ...(o.tlsFingerprint ? { maxCachedSessions: 0 } : {}),
        })
      : new http.Agent(agentOpts);
  }

  private authorization(method: string, uri: string): string | undefined {
    if (!this.challenge) return undefined;
    return digestAuthorization(this.challenge, {
      username: this.o.username,
      password: this.o.password,
      method,
      uri,
      nc: ++this.nc,
    });
  }

  /**
   * After a 401: take the new challenge and answer it, unless the password itself was refused
   * (throws). A refused password is never sent twice: devices lock the account after a few.
   */
  private onUnauthorized(res: DahuaResponse, sentAuth: boolean): void {
    const c = parseDigestChallenge(res.headers['www-authenticate']);
    if (!c) {
      // Nothing was sent that the device could refuse: said as what it is, never as a refused password.
      const offered = offeredLogins(res.headers['www-authenticate']);
      throw new DahuaChallengeError(cannotAnswerWords(this.peer, offered), offered);
    }
    const staleNonce = c.stale || (this.proven && this.challenge !== undefined && this.challenge.nonce !== c.nonce);
    this.challenge = c;
    this.nc = 0;
    this.proven = false;
    if (!sentAuth || staleNonce) return;
    const locked = /lock/i.test(res.text);
    throw new DahuaAuthError(
      locked
        ? `${this.peer} has locked the account "${this.o.username}" after repeated wrong passwords`
        : `${this.peer} refuses the password of "${this.o.username}"`,
      locked,
    );
  }

  /** One exchange, the head and (unless `stream`) the whole body within the deadlines. */
  private send(
    method: string,
    path: string,
    auth: string | undefined,
    req: DahuaRequest,
    stream: boolean,
  ): Promise<{ res: IncomingMessage; text?: string }> {
    const { o } = this;
    return new Promise((resolve, reject) => {
      // Stopped already (the daemon shutting down while a poll goes on): no request at all. A
      // request destroyed before its error listener is on emits "socket hang up" to nobody, an
      // uncaught exception that ended the daemon with 70 instead of 0 on SIGTERM.
      if (req.signal?.aborted) return reject(abortError());
      const headers: Record<string, string> = { host: this.peer, accept: '*/*' };
      if (auth) headers.authorization = auth;
      if (req.body !== undefined) {
        headers['content-type'] = req.contentType ?? 'application/json';
        headers['content-length'] = String(Buffer.byteLength(req.body));
      }
      const mod = o.tls ? https : http;
      let settled = false;
      const fail = (e: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        // The source's signal lives as long as the source: a listener left on it would pile up.
        req.signal?.removeEventListener('abort', onAbort);
        r.destroy();
        reject(e);
      };
      // The event stream holds its connection for ever: its own, never the one the polls share.
      const r = mod.request({
        host: o.host,
        port: o.port,
        method,
        path,
        headers,
        agent: stream ? false : this.agent,
        ...(o.tls ? { rejectUnauthorized: o.tlsFingerprint === undefined } : {}),
      });
      // The whole answer within a few timeouts, however the device trickles it.
      const deadline = setTimeout(
        () =>
          fail(
            new DahuaConnectionError(
              `${this.peer} did not finish its answer within ${Math.round((o.timeoutMs * ANSWER_DEADLINE_TIMEOUTS) / 1000)} s`,
              'DEADLINE',
            ),
          ),
        o.timeoutMs * (stream ? 1 : ANSWER_DEADLINE_TIMEOUTS),
      );
      r.setTimeout(o.timeoutMs, () =>
        fail(new DahuaConnectionError(`no answer from ${this.peer} within ${o.timeoutMs / 1000} s`, 'TIMEOUT')),
      );
      const onAbort = () => fail(abortError());
      req.signal?.addEventListener('abort', onAbort, { once: true });
      if (o.tls && o.tlsFingerprint) {
        r.on('socket', (s) => {
          const check = () => {
            const got = (s as TLSSocket).getPeerCertificate?.().fingerprint256?.toUpperCase();
            if (got !== o.tlsFingerprint)
              fail(
                new DahuaConnectionError(
                  `the certificate of ${this.peer} has the fingerprint sha256:${got ?? 'unknown'}, not the pinned one: connection refused (a different device, or someone in between)`,
                  'TLS_PIN',
                ),
              );
          };
          if ((s as TLSSocket).encrypted && (s as TLSSocket).getPeerCertificate?.().fingerprint256) check();
          else s.once('secureConnect', check);
        });
      }
      r.on('error', (e) => fail(describeNetError(e, this.peer, o.timeoutMs)));
      r.on('response', (res) => {
        if (stream && res.statusCode === 200) {
          clearTimeout(deadline);
          req.signal?.removeEventListener('abort', onAbort);
          settled = true;
          r.setTimeout(0);
          resolve({ res });
          return;
        }
        const max = req.maxBytes ?? MAX_ANSWER_BYTES;
        const tooLarge = () =>
          fail(
            new DahuaConnectionError(
              `${this.peer} sent an answer of more than ${Math.round(max / 1024)} kB to ${path.split('?')[0]} (a page of records is about 200 kB): not read further`,
              'ANSWER_TOO_LARGE',
            ),
          );
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > max) return tooLarge();
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (b: Buffer) => {
          size += b.length;
          if (size > max) return tooLarge();
          chunks.push(b);
        });
        res.on('error', (e) => fail(describeNetError(e, this.peer, o.timeoutMs)));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          req.signal?.removeEventListener('abort', onAbort);
          resolve({ res, text: Buffer.concat(chunks).toString('utf8') });
        });
      });
      r.end(req.body);
    });
  }

  /** A request, authenticated: answered with the current challenge, or the new one after a 401. */
  async request(method: string, path: string, req: DahuaRequest = {}): Promise<DahuaResponse> {
    let resent = false;
    for (let attempt = 0; ; attempt++) {
      const auth = this.authorization(method, path);
      let sent;
      try {
        sent = await this.send(method, path, auth, req, false);
      } catch (e) {
        // A kept-alive connection the device closed meanwhile (a restart, its idle timeout): once more on a new one.
        if (
          !resent &&
          method === 'GET' &&
          e instanceof DahuaConnectionError &&
          (e.code === 'ECONNRESET' || e.code === 'EPIPE')
        ) {
          resent = true;
          continue;
        }
        throw e;
      }
      const { res, text = '' } = sent;
      const status = res.statusCode ?? 0;
      this.o.onRequest?.(method, path, status);
      const answer = { status, headers: res.headers, text, scrub: this.scrub };
      if (status !== 401) {
        if (auth) this.proven = true;
        return answer;
      }
      this.onUnauthorized(answer, auth !== undefined);
      if (attempt >= 2) throw staleAgain(this.peer);
    }
  }

  /** Opens a long-lived GET (the event stream); resolves with its body once the head says 200. */
  async stream(path: string, signal: AbortSignal): Promise<{ contentType: string; body: IncomingMessage }> {
    for (let attempt = 0; ; attempt++) {
      const auth = this.authorization('GET', path);
      const { res, text = '' } = await this.send('GET', path, auth, { signal }, true);
      const status = res.statusCode ?? 0;
      this.o.onRequest?.('GET', path, status);
      if (status === 200) {
        if (auth) this.proven = true;
        this.streams.add(res);
        res.once('close', () => this.streams.delete(res));
        return { contentType: String(res.headers['content-type'] ?? ''), body: res };
      }
      if (status !== 401) throw new DahuaConnectionError(`${path.split('?')[0]}: HTTP ${status}`, `HTTP_${status}`);
      this.onUnauthorized({ status, headers: res.headers, text }, auth !== undefined);
      if (attempt >= 2) throw staleAgain(this.peer);
    }
  }

  /** Tears every connection down (shutdown, or a connection in a bad state). */
  destroy(): void {
    for (const s of this.streams) s.destroy();
    this.streams.clear();
    this.agent.destroy();
  }
}

/**
 * The third 401 in a row: the two before were answered, and each was a new nonce marked stale
 * (a refusal throws in onUnauthorized). Kept as a refusal (a password was sent), said as it is.
 */
const staleAgain = (peer: string) => new DahuaStaleNonceError(staleNonceCause(peer));

const abortError = () => Object.assign(new Error('aborted'), { name: 'AbortError' });

/** What Node says about a failed connection, in words. */
function describeNetError(e: unknown, peer: string, timeoutMs: number): Error {
  if (e instanceof DahuaConnectionError || e instanceof DahuaAuthError || e instanceof DahuaChallengeError) return e;
  const { text, code } = netErrorText(e, peer, {
    ECONNREFUSED: `${peer} refused the connection (nothing listens there: check host and port)`,
    ...routeWords(peer),
    ETIMEDOUT: `no answer from ${peer} within ${timeoutMs / 1000} s`,
    EPROTO: `${peer} does not speak TLS there (set tls: false?)`,
    ERR_SSL_WRONG_VERSION_NUMBER: `${peer} does not speak TLS there (set tls: false?)`,
    DEPTH_ZERO_SELF_SIGNED_CERT: `the certificate of ${peer} is self-signed: pin it with tlsFingerprint`,
    SELF_SIGNED_CERT_IN_CHAIN: `the certificate of ${peer} is not trusted: pin it with tlsFingerprint`,
  });
  return new DahuaConnectionError(text, code);
}
