import { request } from 'node:http';
import { admsSchema, type AdmsConfig } from '../../src/config/adms.js';
import type { AdmsTerminalConfig } from '../../src/config/terminals.js';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import type { PushJournal } from '../../src/journal/types.js';
import { AdmsReceiver } from '../../src/sources/adms/index.js';
import { systemClock, type Clock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { tempDir } from '../helpers/tmp.js';

export const terminal = (
  name: string,
  serial: string,
  extra: Partial<AdmsTerminalConfig> = {},
): AdmsTerminalConfig => ({
  name,
  kind: 'adms',
  serial,
  enabled: true,
  timezone: 'UTC',
  ...extra,
});

/** Log lines of the receiver, parsed (every line must be JSON). */
export interface LogSink {
  lines: () => Record<string, unknown>[];
  text: () => string;
}

function capturingLogger(): { logger: ReturnType<typeof createLogger>; sink: LogSink } {
  const raw: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (s: string) => raw.push(s) },
  });
  return {
    logger,
    sink: { lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>), text: () => raw.join('') },
  };
}

/**
 * The push receiver in this process, on 127.0.0.1 port 0, with a real journal in a temp folder.
 * `wrap` lets a test put a failing journal between the receiver and the store.
 */
export async function startReceiver(
  opts: {
    terminals?: AdmsTerminalConfig[];
    adms?: Partial<AdmsConfig>;
    clock?: Clock;
    wrap?: (store: PushJournal) => PushJournal;
    dir?: ReturnType<typeof tempDir>;
    /** Keep the notes for the status in the journal, as punchgate run does. */
    notes?: boolean;
    /** How often contacts and registrations are written (100 ms unless told). */
    flushMs?: number;
  } = {},
) {
  const tmp = opts.dir ?? tempDir('punchgate-adms-');
  const clock = opts.clock ?? systemClock;
  const journal = Journal.open({ path: tmp.path('journal.db'), site: 'adms', mode: 'owner', clock });
  const store = new PushStore(journal.db, journal, clock);
  const { logger, sink } = capturingLogger();
  let woken = 0;
  const receiver = new AdmsReceiver({
    settings: admsSchema.parse({ listen: '127.0.0.1:0', ...opts.adms }),
    journal: opts.wrap ? opts.wrap(store) : store,
    logger,
    clock,
    flushMs: opts.flushMs ?? 100,
    onPunches: (n) => (woken += n),
    ...(opts.notes ? { notes: journal.sourceState } : {}),
  });
  for (const t of opts.terminals ?? []) receiver.register(t);
  const where = await receiver.start();
  if (!where) throw new Error(`receiver did not start: ${sink.text()}`);
  const url = `http://127.0.0.1:${where.port}`;
  return {
    tmp,
    url,
    port: where.port,
    receiver,
    journal,
    store,
    log: sink,
    woken: () => woken,
    /** Closes the receiver and the journal; keeps the folder (pass `keep`) or removes it. */
    async stop(keep = false) {
      await receiver.stop();
      journal.close();
      if (!keep) tmp.cleanup();
    },
  };
}

/** One raw HTTP request (no keep-alive), as a terminal would send it. */
export function http(
  url: string,
  method: 'GET' | 'POST',
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
  /** Send from another loopback address (127.0.0.2...), as another device on the LAN. */
  localAddress?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, url);
    const data = typeof body === 'string' ? Buffer.from(body) : body;
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path: u.pathname + u.search,
        agent: false,
        ...(localAddress ? { localAddress } : {}),
        headers: {
          ...(data && !headers['Transfer-Encoding'] ? { 'Content-Length': String(data.length) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

export const attlog = (lines: string[]) => lines.join('\n') + '\n';
