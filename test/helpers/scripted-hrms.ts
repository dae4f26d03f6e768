import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** One attendance request as a misbehaving HRMS sees it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The `punches_data` array, when the body is the multipart form. */
  punches: Array<{ biometriccode: string; logDate: string; devicelogId: string }>;
}

export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is (HTML, broken JSON); anything else as JSON. */
  body?: unknown;
}

export interface ScriptedHrms {
  url: string;
  port: number;
  seen: SeenRequest[];
  /** What the next requests get (replaceable during a test). */
  reply: (req: SeenRequest) => ScriptedReply;
  stop(): Promise<void>;
}

/**
 * An HRMS that answers whatever the test scripts: redirects, error pages, answers that do not
 * fit the batch, messages that quote the request's Authorization header. It records every
 * request. With `tls` (a PEM key and certificate) it serves https.
 */
export async function startScriptedHrms(
  reply: (req: SeenRequest) => ScriptedReply,
  opts: { tls?: { key: string; cert: string } } = {},
): Promise<ScriptedHrms> {
  const state = { reply };
  const seen: SeenRequest[] = [];
  const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void readPunches(Buffer.concat(chunks), req.headers['content-type']).then((punches) => {
        const r: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, punches };
        seen.push(r);
        const out = state.reply(r);
        const text = typeof out.body === 'string' ? out.body : JSON.stringify(out.body ?? {});
        res.writeHead(out.status ?? 200, {
          'content-type': typeof out.body === 'string' ? 'text/html' : 'application/json',
          ...out.headers,
        });
        res.end(text);
      });
    });
  };
  const server: Server = opts.tls ? createTlsServer(opts.tls, handler) : createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    seen,
    get reply() {
      return state.reply;
    },
    set reply(f) {
      state.reply = f;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function readPunches(body: Buffer, contentType: string | undefined): Promise<SeenRequest['punches']> {
  try {
    const form = await new Response(body, { headers: { 'content-type': contentType ?? '' } }).formData();
    const data = form.get('punches_data');
    return typeof data === 'string' ? (JSON.parse(data) as SeenRequest['punches']) : [];
  } catch {
    return [];
  }
}

/** An answer accepting every punch of the request, in the seed's success shape. */
export function acceptEvery(req: SeenRequest): ScriptedReply {
  return { body: { Status: true, Payload: req.punches.map(() => ({ status: true, message: 'Attendance added' })) } };
}
