import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HourlySeries } from '../journal/hourly-stats.js';
import { statusJson, type StatusReport } from '../status/index.js';
import type { Logger } from '../util/logger.js';
import { PAGE_CSP, renderPage, type PageInfo } from './page.js';

/** What the endpoints read; each call reads the current state. */
export interface RouteDeps {
  /** The status report, secrets scrubbed. */
  report: () => StatusReport;
  pageInfo: () => PageInfo;
  /** The page's charts (figures per hour), when there are any. */
  charts?: () => HourlySeries | undefined;
  metrics: { text(): Promise<string>; contentType(): string };
  /** Whether the daemon's loops make progress (the systemd watchdog's test). */
  live: () => boolean;
  /** Why the daemon is not ready, in plain words; empty when it is. */
  notReady: () => string[];
  /** Whether the request's Authorization header lets it in; undefined: no token configured. */
  allows?: (authorization: string | undefined) => boolean;
  /** Without a token: whether the request's Host is a name the page answers (host-check.ts). */
  hostAllowed?: (host: string | undefined) => boolean;
  logger: Logger;
}

const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

type Reply = { status: number; type: string; body: string; headers?: Record<string, string> };
const text = (status: number, body: string, headers?: Record<string, string>): Reply => ({
  status,
  type: 'text/plain; charset=utf-8',
  body: body.endsWith('\n') ? body : `${body}\n`,
  ...(headers ? { headers } : {}),
});

/** Answers one request. Only GET and HEAD; the query string is ignored. */
export async function handleRequest(req: IncomingMessage, res: ServerResponse, d: RouteDeps): Promise<void> {
  let reply: Reply;
  try {
    reply = await route(req, d);
  } catch (e) {
    d.logger.warn({ err: e instanceof Error ? e.message : String(e), path: pathOf(req) }, 'status page request failed');
    reply = text(500, 'internal error: see the punchgate log');
  }
  if (res.headersSent || res.destroyed) return;
  // The body as bytes once: a string would be joined to the head and then copied again to be sent.
  const body = Buffer.from(reply.body);
  res.writeHead(reply.status, {
    ...COMMON_HEADERS,
    'content-type': reply.type,
    'content-length': body.length,
    ...reply.headers,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

async function route(req: IncomingMessage, d: RouteDeps): Promise<Reply> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(405, 'only GET and HEAD', { allow: 'GET, HEAD' });
  if (!d.allows && d.hostAllowed && !d.hostAllowed(req.headers.host)) {
    return text(
      403,
      'this page answers only to localhost, the address it listens on and status.allowedHosts (a request for another name may come from a web page that rebinds its name to this box); open it as http://localhost:PORT/ (through an SSH tunnel: ssh -L PORT:localhost:PORT box), add the name to status.allowedHosts, or set status.authTokenFile',
    );
  }
  if (d.allows && !d.allows(req.headers.authorization)) {
    return text(401, 'a token is needed: send it as a bearer token or as the basic-auth password', {
      'www-authenticate': 'Basic realm="punchgate", charset="UTF-8"',
    });
  }
  switch (pathOf(req)) {
    case '/':
    case '/index.html':
      return {
        status: 200,
        type: 'text/html; charset=utf-8',
        body: renderPage(d.report(), d.pageInfo(), d.charts?.()),
        headers: { 'content-security-policy': PAGE_CSP, 'x-frame-options': 'DENY' },
      };
    case '/status.json':
      return { status: 200, type: 'application/json; charset=utf-8', body: statusJson(d.report()) };
    case '/metrics':
      return { status: 200, type: d.metrics.contentType(), body: await d.metrics.text() };
    case '/livez':
      return d.live() ? text(200, 'ok') : text(503, 'not live: the journal does not answer or an HRMS request hangs');
    case '/readyz': {
      const reasons = d.notReady();
      return reasons.length === 0 ? text(200, 'ok') : text(503, reasons.map((r) => `not ready: ${r}`).join('\n'));
    }
    default:
      return text(404, 'not found: try /, /status.json, /metrics, /livez or /readyz');
  }
}
