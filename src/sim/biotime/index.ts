/**
 * ZKBioTime server simulator: the token endpoints and the transaction list of the API, with the
 * variants and faults seen in the field. Used by `punchgate sim biotime`, the tests and the bench.
 *
 * Built from: ZKTeco's "BioTime 8.0 API User Manual" and "BioTime 9.5 API User Manual" (the
 * endpoints, the `{count, next, previous, msg, code, data}` envelope, the page/page_size/
 * start_time/end_time/terminal_sn/emp_code parameters, the transaction fields); Django REST
 * Framework, which BioTime is built on (the `{count, next, previous, results}` pagination, the
 * `{"detail": ...}` errors, 400 `non_field_errors` for bad credentials, "Signature has expired."
 * from djangorestframework-jwt, 404 "Invalid page."); the public clients and their fixtures that
 * read these (Odoo and Frappe/ERPNext BioTime connectors: `Authorization: JWT <token>` or
 * `Token <token>`); and the licence gate: BioTime 8's iclock and personnel viewsets carry an
 * `IsNotOpenAPI` permission that answers 403 to a JWT or Token request unless the licence has the
 * `api` module (trial licences do not; Supavasinan/zkbiotime-go's README), with Django REST
 * Framework's words for a refused permission.
 *
 * It only ever answers reads: punchgate must never write to a BioTime server, and a test can
 * see that no request but the token POST and GETs arrived (`requests()`).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenPort, openSockets } from '../http-server.js';
import { TransactionTable, type NewTransaction, type SimTransaction } from './store.js';

export { TransactionTable, type NewTransaction, type SimTransaction } from './store.js';
export { generateTransactions, hostileTransactions, SIM_TERMINALS, transaction, empCodeOf } from './generate.js';

export const DEFAULT_BIOTIME_USER = 'admin';
export const DEFAULT_BIOTIME_PASSWORD = 'Sim-passw0rd';

export interface BioServerVariant {
  /** Which token endpoints exist: both, or only the older `/api-token-auth/` (`token`). */
  auth: 'both' | 'token';
  /** `biotime`: `{count, next, previous, msg, code, data}`; `drf`: `{count, next, previous, results}`. */
  envelope: 'biotime' | 'drf';
  /** false: a version that ignores `ordering` and `id__gt` (newest first, always). */
  idOrder: boolean;
  /** false: a version that obeys `id__gt` but ignores `ordering` (ascending by id, whatever is asked). */
  descending: boolean;
  /**
   * Transactions not answered yet although their ids are given: two terminals' uploads committed
   * out of order in the server's database, so a lower id shows after higher ones were read.
   */
  hiddenIds: readonly number[];
  /** Rows per page at most, whatever is asked. */
  maxPageSize: number;
  /** A JWT is refused this long after it was given (`Signature has expired.`); 0: never. */
  tokenTtlMs: number;
  /** A JWT is refused after this many reads (as if it expired: for tests that must not depend on time); 0: never; -1: at once. */
  tokenUses: number;
  /**
   * The status of a refused token (expired, unknown): 401 (JWT or Token authentication first), or 403 as
   * Django REST Framework answers when the view's first authentication class gives no
   * WWW-Authenticate header (SessionAuthentication first: DRF's "Unauthorized and Forbidden
   * responses"), with the same words ("Signature has expired.").
   */
  refusedTokenStatus: 401 | 403;
  /**
   * Transactions deleted while a client pages through the list: once a `page=` query for page
   * `afterPage` is answered, the `remove` newest transactions are deleted (once). The rows after
   * them move up, some onto pages the client has read already. null: never.
   */
  churn: null | { afterPage: number; remove: number };
  /** The licence has no API module: every read answers 403 (the IsNotOpenAPI permission). */
  licenceRefuses: boolean;
  /** Answers wait this long. */
  delayMs: number;
  /** The transaction list misbehaves: `endless` (an answer that never ends, trickled), `huge` (a page padded to hugeBytes), `next-forever` (the same page, `next` for ever). */
  fault: null | 'endless' | 'huge' | 'next-forever';
  hugeBytes: number;
  /** A refused login quotes the password it was given back (a hostile or careless server). */
  quotePassword: boolean;
}

export interface BioSimOptions {
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  table?: TransactionTable;
  variant?: Partial<BioServerVariant>;
}

export interface BioSimRequest {
  method: string;
  path: string;
  status: number;
}

export interface BiotimeSim {
  url: string;
  port: number;
  table: TransactionTable;
  variant(): BioServerVariant;
  setVariant(v: Partial<BioServerVariant>): void;
  setPassword(p: string): void;
  /** Forgets every token given (as a restarted server with a new secret does). */
  forgetTokens(): void;
  add(rows: readonly NewTransaction[]): SimTransaction[];
  requests(): readonly BioSimRequest[];
  stop(): Promise<void>;
}

const MAX_LOGGED = 100_000;

export async function startBiotimeSim(o: BioSimOptions = {}): Promise<BiotimeSim> {
  const table = o.table ?? new TransactionTable();
  const username = o.username ?? DEFAULT_BIOTIME_USER;
  let password = o.password ?? DEFAULT_BIOTIME_PASSWORD;
  let variant: BioServerVariant = {
    auth: 'both',
    envelope: 'biotime',
    idOrder: true,
    descending: true,
    hiddenIds: [],
    maxPageSize: 1000,
    tokenTtlMs: 0,
    tokenUses: 0,
    refusedTokenStatus: 401,
    churn: null,
    licenceRefuses: false,
    delayMs: 0,
    fault: null,
    hugeBytes: 15 * 1024 * 1024,
    quotePassword: false,
    ...o.variant,
  };
  /** token -> scheme and when it was given. */
  let tokens = new Map<string, { scheme: 'JWT' | 'Token'; at: number; uses: number }>();
  const log: BioSimRequest[] = [];
  let base = '';

  const json = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= 64 * 1024) chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', () => resolve(''));
    });

  const login = async (req: IncomingMessage, res: ServerResponse, scheme: 'JWT' | 'Token') => {
    const text = await readBody(req);
    let u: unknown;
    let p: unknown;
    try {
      const b = JSON.parse(text) as Record<string, unknown>;
      u = b.username;
      p = b.password;
    } catch {
      const f = new URLSearchParams(text);
      u = f.get('username');
      p = f.get('password');
    }
    if (u !== username || p !== password)
      return json(res, 400, {
        non_field_errors: [
          variant.quotePassword
            ? `Unable to log in as ${String(u)} with password ${String(p)}.`
            : 'Unable to log in with provided credentials.',
        ],
      });
    const token =
      scheme === 'JWT'
        ? `eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.${randomBytes(24).toString('base64url')}`
        : randomBytes(20).toString('hex');
    tokens.set(token, { scheme, at: Date.now(), uses: 0 });
    return json(res, 200, { token });
  };

  const authorised = (req: IncomingMessage, res: ServerResponse): boolean => {
    const h = req.headers.authorization ?? '';
    const m = /^(JWT|Token) (\S+)$/.exec(h);
    const t = m ? tokens.get(m[2]!) : undefined;
    if (!m) {
      json(res, 401, { detail: 'Authentication credentials were not provided.' });
      return false;
    }
    if (!t || t.scheme !== m[1]) {
      json(res, variant.refusedTokenStatus, {
        detail: m[1] === 'JWT' ? 'Error decoding signature.' : 'Invalid token.',
      });
      return false;
    }
    const expired =
      (variant.tokenTtlMs > 0 && Date.now() - t.at > variant.tokenTtlMs) ||
      (variant.tokenUses !== 0 && t.uses >= variant.tokenUses);
    t.uses++;
    if (t.scheme === 'JWT' && expired) {
      json(res, variant.refusedTokenStatus, { detail: 'Signature has expired.' });
      return false;
    }
    return true;
  };

  const list = (url: URL, res: ServerResponse) => {
    const q = url.searchParams;
    let rows: readonly SimTransaction[] = table.all();
    const after = q.get('id__gt');
    if (variant.idOrder && after && /^\d+$/.test(after)) {
      // The table is in id order: the rows after an id are found by bisection, not by a scan.
      let lo = 0;
      let hi = rows.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (rows[mid]!.id <= Number(after)) lo = mid + 1;
        else hi = mid;
      }
      rows = rows.slice(lo);
    }
    const start = q.get('start_time');
    const end = q.get('end_time');
    const sn = q.get('terminal_sn');
    const emp = q.get('emp_code');
    if (variant.hiddenIds.length > 0) {
      const hidden = new Set(variant.hiddenIds);
      rows = rows.filter((r) => !hidden.has(r.id));
    }
    if (start) rows = rows.filter((r) => r.punch_time >= start);
    if (end) rows = rows.filter((r) => r.punch_time <= end);
    if (sn) rows = rows.filter((r) => r.terminal_sn === sn);
    if (emp) rows = rows.filter((r) => r.emp_code === emp);
    if (variant.idOrder) {
      if (q.get('ordering') === '-id' && variant.descending) rows = [...rows].reverse();
    } else {
      rows = [...rows].reverse(); // this version lists newest first, whatever is asked
    }
    const size = Math.min(Math.max(1, Number(q.get('page_size')) || 10), variant.maxPageSize);
    const page = Math.max(1, Number(q.get('page')) || 1);
    const from = (page - 1) * size;
    if (from > 0 && from >= rows.length) return json(res, 404, { detail: 'Invalid page.' });
    const slice = rows.slice(from, from + size).map(({ extra, ...r }) => ({ ...r, ...extra }));
    const link = (n: number) => {
      const u = new URL(url.toString(), base);
      u.searchParams.set('page', String(n));
      return u.toString();
    };
    const more = variant.fault === 'next-forever' || from + size < rows.length;
    const envelope = {
      count: rows.length,
      next: more ? link(page + 1) : null,
      previous: page > 1 ? link(page - 1) : null,
      ...(variant.envelope === 'biotime' ? { msg: '', code: 0, data: slice } : { results: slice }),
    };
    if (variant.fault === 'huge') {
      const text = JSON.stringify({ ...envelope, padding: 'x'.repeat(variant.hugeBytes) });
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(text);
    }
    if (variant.fault === 'endless') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"count": 1, "next": null, "data": [');
      // A little at a time, for ever: no idle timeout trips; only a deadline for the whole answer ends it.
      const trickle = setInterval(() => {
        if (res.destroyed) clearInterval(trickle);
        else res.write(' '.repeat(64));
      }, 50);
      res.on('close', () => clearInterval(trickle));
      return;
    }
    json(res, 200, envelope);
    const churn = variant.churn;
    if (churn && q.get('page') === String(churn.afterPage)) {
      variant = { ...variant, churn: null };
      table.remove(
        table
          .all()
          .slice(-churn.remove)
          .map((r) => r.id),
      );
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const path = url.pathname;
    res.on('finish', () => {
      if (log.length < MAX_LOGGED)
        log.push({ method: req.method ?? '', path: `${path}${url.search}`, status: res.statusCode });
    });
    if (variant.delayMs > 0) await new Promise((r) => setTimeout(r, variant.delayMs));
    if (req.method === 'POST' && path === '/jwt-api-token-auth/' && variant.auth === 'both')
      return login(req, res, 'JWT');
    if (req.method === 'POST' && path === '/api-token-auth/') return login(req, res, 'Token');
    if (req.method === 'GET' && path === '/iclock/api/transactions/') {
      if (!authorised(req, res)) return;
      if (variant.licenceRefuses)
        return json(res, 403, { detail: 'You do not have permission to perform this action.' });
      return list(url, res);
    }
    if (req.method !== 'GET' && req.method !== 'POST')
      return json(res, 405, { detail: `Method "${req.method}" not allowed.` });
    json(res, 404, { detail: 'Not found.' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  const sockets = openSockets(server);
  const port = await listenPort(server, o.host ?? '127.0.0.1', o.port ?? 0);
  base = `http://${o.host ?? '127.0.0.1'}:${port}`;
  return {
    url: base,
    port,
    table,
    variant: () => ({ ...variant }),
    setVariant: (v) => {
      variant = { ...variant, ...v };
    },
    setPassword: (p) => {
      password = p;
    },
    forgetTokens: () => {
      tokens = new Map();
    },
    add: (rows) => table.add(rows),
    requests: () => log,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
