import { BioApiError, BioAuthError, BioConnectionError, BioRefusedError } from './errors.js';
import { decodedText, quotedWords } from '../answer-words.js';
import { HeldSecrets } from '../held-secrets.js';
import { BioHttp, type BioResponse } from './http.js';

/**
 * The ZKBioTime API as punchgate reads it (BioTime 8.x/9.x "API User Manual"; the shapes checked
 * against public clients: the Odoo and Frappe/ERPNext BioTime connectors, and test fixtures built
 * from the manuals, which answer `{count, next, previous, msg, code, data}`; Django REST
 * Framework's plain pagination answers `{count, next, previous, results}`; both are read).
 *
 * - A token from `POST /jwt-api-token-auth/` (sent as `Authorization: JWT <token>`), or on
 *   servers where only that exists `POST /api-token-auth/` (sent as `Token <token>`). Kept in
 *   memory only; a 401 on a read renews it once (JWT tokens expire, a restarted server forgets
 *   its tokens); a 401 again is the account's trouble (BioAuthError).
 * - Transactions from `GET /iclock/api/transactions/`.
 *
 * Only GET and the token POST: punchgate never writes to the server.
 */

export type AuthMode = 'auto' | 'jwt' | 'token';

/** A transaction row as sent (fields read defensively: any may be missing or of another type). */
export type BioRow = Record<string, unknown>;

export interface BioPage {
  rows: BioRow[];
  count: number | null;
  /** The server says another page follows. */
  hasNext: boolean;
  /** Items of the list that are no transaction at all (null, a string, a number): left out, and said. */
  notRows: number;
}

const JWT_PATH = '/jwt-api-token-auth/';
const TOKEN_PATH = '/api-token-auth/';
export const TRANSACTIONS_PATH = '/iclock/api/transactions/';

/** What takes the secrets a client holds out of a server's words (HeldSecrets#scrub). */
export type Scrub = (text: string) => string;

/**
 * The server's words in an answer (`detail`, `msg`, `non_field_errors`...), quoted short, with
 * every secret `scrub` knows taken out of them as the server meant them (JSON decoded first: a
 * password echoed in an error is escaped in the raw body). Every quote of an answer in this
 * source is made here: a server's text reaches no message, log or status any other way.
 */
export function saidIn(text: string, scrub: Scrub): string {
  let words = '';
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    const pick = (v: unknown): string =>
      typeof v === 'string' ? v : Array.isArray(v) ? v.map(pick).filter(Boolean).join('; ') : '';
    words = pick(o.detail) || pick(o.msg) || pick(o.message) || pick(o.non_field_errors) || pick(o.error);
  } catch {
    words = decodedText(/<title>([^<]*)<\/title>/i.exec(text)?.[1] ?? text);
  }
  // Text from outside: printable, one line, short (the status and the page escape it too).
  return quotedWords(words, scrub);
}

/** An answer saying the licence has no API, or the account may not use it. */
function refusal(res: BioResponse, what: string, peer: string, scrub: Scrub): BioRefusedError {
  const said = saidIn(res.text, scrub);
  return new BioRefusedError(
    `${peer} refuses ${what} (HTTP ${res.status}${said ? `: "${said}"` : ''})`,
    res.status,
    said,
  );
}

export class BioTimeClient {
  private token: { scheme: 'JWT' | 'Token'; value: string } | undefined;
  /** Learnt per process: the server has only the Token endpoint. */
  private onlyToken = false;
  /** The password and the tokens given: taken out of every answer quoted (a server may echo either). */
  private readonly held: HeldSecrets;
  private readonly scrub: Scrub;

  constructor(
    readonly http: BioHttp,
    private readonly account: { username: string; password: string; auth: AuthMode },
  ) {
    this.held = new HeldSecrets(account.password);
    this.scrub = (text) => this.held.scrub(text);
  }

  get scheme(): 'JWT' | 'Token' | undefined {
    return this.token?.scheme;
  }

  /** Forgets the token (the next read asks for a new one). */
  forgetToken(): void {
    this.token = undefined;
  }

  private async login(signal?: AbortSignal): Promise<void> {
    const body = { username: this.account.username, password: this.account.password };
    const tryJwt = this.account.auth === 'jwt' || (this.account.auth === 'auto' && !this.onlyToken);
    if (tryJwt) {
      const res = await this.tokenRequest(JWT_PATH, body, signal);
      if (res.status !== 404 && res.status !== 405) {
        this.token = { scheme: 'JWT', value: this.tokenFrom(res, 'JWT') };
        return;
      }
      if (this.account.auth === 'jwt')
        throw new BioApiError(`${this.http.peer} has no ${JWT_PATH} (HTTP ${res.status}): set auth: token`, res.status);
      this.onlyToken = true;
    }
    const res = await this.tokenRequest(TOKEN_PATH, body, signal);
    this.token = { scheme: 'Token', value: this.tokenFrom(res, 'Token') };
  }

  /**
   * One token request. An answer cut at a bound (larger than any answer, or never finished) is no
   * token, and nothing was read: said as the token request's trouble, not as a poll "ended early"
   * with what it read kept (those words are for a page of transactions cut so).
   */
  private async tokenRequest(path: string, json: unknown, signal?: AbortSignal): Promise<BioResponse> {
    try {
      return await this.http.request('POST', path, { json, signal });
    } catch (e) {
      if (e instanceof BioConnectionError && e.code === 'ANSWER_TOO_LARGE')
        throw new BioApiError(
          `${this.http.peer} answers its token request (${path}) with more than any token: is baseUrl the BioTime server's address?`,
          200,
        );
      if (e instanceof BioConnectionError && e.code === 'DEADLINE')
        throw new BioConnectionError(`${e.message} to its token request (${path})`, 'TOKEN_DEADLINE');
      throw e;
    }
  }

  private tokenFrom(res: BioResponse, scheme: string): string {
    const peer = this.http.peer;
    if (res.status === 400 || res.status === 401) {
      const said = saidIn(res.text, this.scrub);
      throw new BioAuthError(`${peer} refuses the username and password${said ? ` ("${said}")` : ''}`);
    }
    if (res.status === 403) throw refusal(res, 'to give a token', peer, this.scrub);
    if (res.status < 200 || res.status > 299)
      throw new BioApiError(`${peer} answers its token request with HTTP ${res.status}`, res.status);
    let token: unknown;
    try {
      const o = JSON.parse(res.text) as Record<string, unknown>;
      // `{token}`; some builds wrap it: `{data: {token}}`, or call it `key`.
      const data = o.data as Record<string, unknown> | undefined;
      token = o.token ?? o.key ?? data?.token;
    } catch {
      /* below */
    }
    if (typeof token !== 'string' || token === '' || token.length > 8192 || /[\r\n]/.test(token))
      throw new BioApiError(`${peer} answers its token request without a ${scheme} token`, res.status);
    this.held.addToken(token);
    return token;
  }

  /** A GET with the token, renewed once when refused (401, or 403 in the words of a refused token). */
  async get(path: string, signal?: AbortSignal): Promise<BioResponse> {
    for (let attempt = 0; ; attempt++) {
      if (!this.token) await this.login(signal);
      const t = this.token!;
      const res = await this.http.request('GET', path, { authorization: `${t.scheme} ${t.value}`, signal });
      if (res.status !== 401 && !(res.status === 403 && tokenRefused(res.text))) return res;
      this.token = undefined;
      if (attempt >= 1) {
        // A token given a moment ago and refused at once: not the password, the account's rights (or the licence).
        throw refusal(res, 'the token it just gave (the account may not use the API)', this.http.peer, this.scrub);
      }
    }
  }

  /** One page of transactions for the query (a path with its query string). */
  async transactions(query: URLSearchParams, signal?: AbortSignal): Promise<BioPage> {
    const path = `${TRANSACTIONS_PATH}?${query.toString()}`;
    const res = await this.get(path, signal);
    const peer = this.http.peer;
    if (res.status === 403) throw refusal(res, 'the API', peer, this.scrub);
    // Django REST Framework answers a page past the end 404 ("Invalid page."): the list got shorter
    // since its first page (transactions deleted, a clean-up of old ones), and it ends before this
    // page. Page 1 never does (an empty list is a page): its 404 is a wrong address.
    if (res.status === 404 && Number(query.get('page') ?? '1') > 1)
      return { rows: [], count: null, hasNext: false, notRows: 0 };
    if (res.status === 404)
      throw new BioApiError(
        `${peer} has no ${TRANSACTIONS_PATH} (HTTP 404): is baseUrl the BioTime server's address?`,
        404,
      );
    if (res.status < 200 || res.status > 299) {
      const said = saidIn(res.text, this.scrub);
      throw new BioApiError(
        `${peer} answers ${TRANSACTIONS_PATH} with HTTP ${res.status}${said ? ` ("${said}")` : ''}`,
        res.status,
      );
    }
    return parsePage(res.text, peer, this.scrub);
  }
}

/**
 * A 403 that refuses the token, not the account or the licence: Django REST Framework answers an
 * authentication failure 403 instead of 401 when the view's first authentication class gives no
 * WWW-Authenticate header (SessionAuthentication listed first; DRF's guide, "Unauthorized and
 * Forbidden responses"), in the words of the token's class: djangorestframework-jwt's "Signature
 * has expired." / "Error decoding signature.", TokenAuthentication's "Invalid token.", "Authentication
 * credentials were not provided.". The licence's and the account's refusal says "permission".
 */
function tokenRefused(text: string): boolean {
  let detail: unknown;
  try {
    detail = (JSON.parse(text) as Record<string, unknown> | null)?.detail;
  } catch {
    return false;
  }
  return (
    typeof detail === 'string' && /signature|token|credentials|authenticat/i.test(detail) && !/permission/i.test(detail)
  );
}

/** A page in any of the envelopes (see above); anything else is the server's fault (BioApiError). */
export function parsePage(text: string, peer: string, scrub: Scrub): BioPage {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    throw new BioApiError(`${peer} answers ${TRANSACTIONS_PATH} with something that is not JSON`, 200);
  }
  if (Array.isArray(o)) return { ...rowsOf(o), count: o.length, hasNext: false };
  if (!isRow(o)) throw new BioApiError(`${peer} answers ${TRANSACTIONS_PATH} with JSON that is not a page`, 200);
  // `{code, msg}`: a code other than 0 is an error in words (BioTime's own envelope).
  const code = o.code;
  if (code !== undefined && code !== 0 && code !== '0' && code !== null) {
    const said = saidIn(text, scrub);
    if (/api|licen[cs]e|permission|forbidden/i.test(said))
      throw new BioRefusedError(`${peer} refuses the API ("${said}")`, 200, said);
    throw new BioApiError(
      `${peer} answers ${TRANSACTIONS_PATH} with code ${String(code).slice(0, 20)}${said ? ` ("${said}")` : ''}`,
      200,
    );
  }
  const list = o.data ?? o.results;
  if (!Array.isArray(list))
    throw new BioApiError(`${peer} answers ${TRANSACTIONS_PATH} without a list of transactions`, 200);
  const count = typeof o.count === 'number' && Number.isSafeInteger(o.count) ? o.count : null;
  return { ...rowsOf(list), count, hasNext: typeof o.next === 'string' && o.next !== '' };
}

/** The list's transactions, and how many of its items were none (never dropped unsaid). */
function rowsOf(list: readonly unknown[]): { rows: BioRow[]; notRows: number } {
  const rows = list.filter(isRow);
  return { rows, notRows: list.length - rows.length };
}

function isRow(v: unknown): v is BioRow {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Opens a client (the token is asked for at the first read). */
export async function openClient(opts: {
  baseUrl: string;
  username: string;
  password: string;
  auth: AuthMode;
  timeoutMs: number;
  ca?: Buffer;
  onRequest?: (method: string, path: string, status: number) => void;
}): Promise<BioTimeClient> {
  const http = await BioHttp.open({
    baseUrl: opts.baseUrl,
    timeoutMs: opts.timeoutMs,
    ca: opts.ca,
    onRequest: opts.onRequest,
  });
  return new BioTimeClient(http, { username: opts.username, password: opts.password, auth: opts.auth });
}
