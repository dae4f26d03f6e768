/**
 * What the HTTP server simulators of the HRMS side (hrms/, frappe/) do alike around their own
 * routes: each request logged as `METHOD /path -> outcome (N ms)` (the path only: a query string
 * is the client's and is not ours to log), a bug in the simulator answered 500 instead of taking
 * it down, listening on host:port (port 0: any free one), and a stop that may be called twice.
 * The device and Odoo simulators share the listening (`listenPort`) and the open connections
 * their stop drops (`openSockets`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An HTTP server whose `handle` answers each request and says how (`200`, `404 page`...);
 * `answerBug` answers a request whose handling threw.
 */
export function createLoggedServer(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<string>,
  log: (line: string) => void,
  answerBug: (res: ServerResponse) => void,
): Server {
  return createServer((req, res) => {
    const started = Date.now();
    const path = new URL(req.url ?? '/', 'http://sim.invalid').pathname;
    handle(req, res).then(
      (outcome) => log(`${req.method} ${path} -> ${outcome} (${Date.now() - started} ms)`),
      (e: unknown) => {
        log(`${req.method} ${path} -> 500 ${e instanceof Error ? e.message : String(e)}`);
        answerBug(res);
      },
    );
  });
}

export interface Listening {
  port: number;
  /** The host as a URL writes it (an IPv6 address in brackets). */
  urlHost: string;
  /** Closes the server and its connections; a second call waits for the same close. */
  stop: () => Promise<void>;
}

/** Listens on host:port; rejects when it cannot (the port taken). */
export async function listenHttp(server: Server, host: string, port: number): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let stopped: Promise<void> | null = null;
  return {
    port: (server.address() as AddressInfo).port,
    urlHost: host.includes(':') ? `[${host}]` : host,
    stop: () => {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

/**
 * Listens on host:port (port 0: any free one) and gives the port bound; rejects when it cannot
 * (the port taken). As these simulators always did, the error listener stays on after.
 */
export async function listenPort(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** The connections open on the server, kept up to date: a stop or restart drops them. */
export function openSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return sockets;
}
