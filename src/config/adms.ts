import { z } from 'zod';
import { parseListen } from './listen.js';

const ADMS_LISTEN_FORMAT = 'must be HOST:PORT such as 0.0.0.0:8081 or [::]:8081';

/** Host and port of `adms.listen` (validated with the config). */
export function admsListenAddress(adms: Pick<AdmsConfig, 'listen'>): { host: string; port: number } {
  const at = parseListen(adms.listen);
  if (typeof at === 'string') throw new Error(`adms.listen: ${at}`);
  return { host: at.host, port: at.port };
}

/**
 * The receiver of push terminals (ZKTeco ADMS / iclock). It starts with `punchgate run` when
 * `adms.listen` is set. The defaults suit a few hundred terminals on a small box.
 */
export const admsSchema = z.strictObject({
  /** Where terminals push: host:port (8081 is the usual ADMS port). */
  // A port alone (`listen: 8081`, a number) is the usual first try: say the form, not "must be text".
  listen: z
    .string({ error: 'must be HOST:PORT such as 0.0.0.0:8081 or [::]:8081 (a port alone is not enough)' })
    .superRefine((s, ctx) => {
      const at = parseListen(s, ADMS_LISTEN_FORMAT);
      if (typeof at === 'string') ctx.addIssue({ code: 'custom', message: at });
    })
    // What it expects, said when it is missing (issues.ts).
    .describe('HOST:PORT where push terminals send their punches (e.g. 0.0.0.0:8081)'),
  /** `Delay=`: seconds between a terminal's command polls (the protocol suggests 2-60). */
  delay: z.number().int().min(1).max(600).default(10),
  /** `ErrorDelay=`: seconds a terminal waits before retrying after a failed request (30-300 suggested). */
  errorDelay: z.number().int().min(1).max(3600).default(30),
  /** `Realtime=1`: terminals send each punch as it happens (else at TransInterval). */
  realtime: z.boolean().default(true),
  /** Largest request body read (ATTLOG, OPERLOG, command results); larger ones get HTTP 413. */
  maxBodyBytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(2 * 1024 * 1024),
  /** Open connections at most (all terminals together); more are closed at once. */
  maxConnections: z.number().int().min(1).max(100_000).default(1024),
  /** Open connections at most from one address (terminals behind one NAT router share it). */
  maxConnectionsPerAddress: z.number().int().min(1).max(100_000).default(64),
  /** A request (headers and body) must arrive within this time, or the connection is closed. */
  requestTimeoutMs: z.number().int().min(1000).max(600_000).default(30_000),
  /**
   * Uploads answered OK that punchgate could not turn into punches or known records (an unknown
   * table, lines it cannot read) are kept raw in the journal, all terminals together, within
   * these bounds: the oldest go first (counted in the status).
   */
  keptUploads: z
    .strictObject({
      maxBytes: z
        .number()
        .int()
        .min(64 * 1024)
        .max(4 * 1024 * 1024 * 1024)
        .default(64 * 1024 * 1024),
      maxAgeDays: z.number().int().min(1).max(3650).default(30),
    })
    .prefault({}),
});

export type AdmsConfig = z.infer<typeof admsSchema>;

/** A push terminal is offline after this many missed polls (Delay periods), and no sooner than 30 s. */
const OFFLINE_AFTER_DELAYS = 3;

/** How long a push terminal may stay silent before it counts as offline. */
export function pushOfflineAfterMs(adms: Pick<AdmsConfig, 'delay'> | undefined): number {
  return Math.max(30_000, OFFLINE_AFTER_DELAYS * (adms?.delay ?? 10) * 1000);
}
