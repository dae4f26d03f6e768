import { z } from 'zod';
import { admsSchema } from './adms.js';
import { checkDuplicates } from './duplicates.js';
import { checkListenCollisions } from './listen-collisions.js';
import { DEFAULT_STATUS_LISTEN, LISTEN_FORMAT, parseListen } from './listen.js';
import { hrmsSchema } from './hrms.js';
import { checkSinks, sinkListSchema } from './sinks.js';
import { terminalSchema } from './terminals.js';

export const DEFAULT_CONFIG_PATH = '/etc/punchgate/punchgate.yaml';
export { DEFAULT_ATTENDANCE_PATH } from './hrms.js';

const durationMs = z.number().int().min(0);

const backoffSchema = (baseMs: number, maxMs: number) =>
  z.strictObject({ baseMs: durationMs.default(baseMs), maxMs: durationMs.default(maxMs) }).prefault({});

const deliverySchema = z
  .strictObject({
    batchSize: z.number().int().min(1).max(10_000).default(200),
    /** How often an idle deliverer looks for due punches. */
    pollIntervalMs: durationMs.default(1000),
    /** Whole-request failures (network, timeout, 5xx, not JSON): exponential backoff with full jitter. */
    retry: backoffSchema(1000, 300_000),
    /** Punches the HRMS refused: retried on a slower schedule (1 h doubling to 24 h). */
    rejectedRetry: backoffSchema(3_600_000, 86_400_000),
    /** A rejected punch becomes dead after this many attempts or this age, whichever first. */
    deadAfterAttempts: z.number().int().min(1).default(30),
    deadAfterDays: z.number().min(0).default(30),
    /** While the token is refused, try again this often (no attempt is charged to punches). */
    authRetryMs: durationMs.default(180_000),
    /**
     * The longest wait a server's Retry-After is honoured for: it is asked again after this (one
     * request; answered with the same Retry-After, another wait). An HRMS asking for a day (a
     * misconfigured rate limit, `Retry-After: 86400`) held delivery an hour without a word.
     */
    retryAfterMaxMs: durationMs.min(1000).max(3_600_000).default(300_000),
    /** Delivery failing this long (no batch taken since the first failure) is an alert. */
    alertAfterMinutes: z.number().min(1).max(10_080).default(10),
    /**
     * While the HRMS is unreachable (refused, timeout, 5xx), it is asked this often with an empty
     * batch (nothing recorded), whatever the backoff: delivery resumes within about this long of its
     * return (jittered between half and all of it). 0: no probe, the backoff alone.
     */
    probeIntervalMs: durationMs.max(60_000).default(10_000),
    /** Case-insensitive regular expressions over per-punch and whole-request messages. */
    patterns: z
      .strictObject({
        duplicate: z
          .array(z.string())
          // "duplicate" alone also matched refusals of a punch not recorded at all ("duplicate
          // employee records match this code"), which were then counted delivered: the word must
          // be about the record (found by an adversarial trial). "already marked" is not one either:
          // "Attendance ... is already marked as On Leave for this date" refuses the punch.
          .default([
            'already exist',
            'already (been )?(added|recorded)',
            'duplicate (entry|record|punch|log|attendance|check-?in|devicelog ?id|key)',
            'is a duplicate',
            '^\\W*duplicate\\W*$',
          ]),
        authFailure: z
          .array(z.string())
          // "Invalid token", "Token has expired", "Unauthenticated." (common API wordings) were read
          // as a refusal of the request: split, probed, and a punch refused before was charged for it.
          .default([
            'bearer token',
            'token (is |has )?(not correct|invalid|expired|been revoked|revoked)',
            '(invalid|expired|revoked|wrong) (api |access |auth |bearer )?token',
            'unauthori[sz]ed|unauthenticated',
          ]),
      })
      .prefault({}),
  })
  .prefault({});

// `.describe()` on a required key: what it expects, said when it is missing (issues.ts).
const journalSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe('the file of the journal, where punches wait until delivered (e.g. /var/lib/punchgate/journal.db)'),
  /** Delivered punches are kept this long so that an old terminal log never enqueues them again. */
  retentionDays: z.number().int().min(1).default(400),
  /**
   * A punch more than this far in the future is quarantined: against the terminal's own clock where
   * it is read or a push terminal's steady offset is known (journal/future-judge.ts), else the box's.
   */
  futureToleranceMinutes: z.number().int().min(0).default(10),
  /**
   * A new punch dated more than this before the moment it could have been recorded (a real-time
   * event or serial line: the box's clock; a polled log: the time its log was last read up to)
   * was recorded while the terminal's clock was behind, and is quarantined.
   */
  pastToleranceHours: z.number().min(1).default(24),
  /**
   * Once `punchgate backup` has written a backup on this box, a last backup older than this many
   * days is an alert (status, page, check): the nightly timer runs every night, so 2 lets one
   * night be missed and not a second. 0: never.
   */
  backupAlertAfterDays: z.number().min(0).max(3650).default(2),
});

const statusSchema = z
  .strictObject({
    /** The human-readable status log; default `status.txt` beside the journal. */
    path: z.string().optional(),
    intervalMs: durationMs.default(60_000),
    /** The status page, /status.json, /metrics, /livez and /readyz: HOST:PORT, or false for none. */
    listen: z
      .union([z.literal(false), z.string()], { error: LISTEN_FORMAT })
      .default(DEFAULT_STATUS_LISTEN)
      .superRefine((l, ctx) => {
        const parsed = l === false ? undefined : parseListen(l);
        if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed });
      }),
    /** File holding the token a visitor must send (bearer token, or the password of basic auth). */
    authTokenFile: z.string().min(1).optional(),
    /** Serve beyond loopback without a token (a trusted network only). */
    allowUnauthenticated: z.boolean().default(false),
    /**
     * Without a token the page answers only requests for localhost and the listen address (a
     * defence against DNS rebinding): further names it answers to (`punchgate.plant.lan`).
     */
    allowedHosts: z
      .array(z.string().regex(/^[A-Za-z0-9.-]+$/, 'must be a host name such as punchgate.plant.lan'))
      .default([]),
    /** How often the status page reloads itself in the browser. */
    refreshSeconds: z.number().int().min(1).max(3600).default(10),
  })
  .superRefine((s, ctx) => {
    const at = s.listen === false ? undefined : parseListen(s.listen);
    if (typeof at === 'object' && !at.loopback && !s.authTokenFile && !s.allowUnauthenticated) {
      ctx.addIssue({
        code: 'custom',
        path: ['listen'],
        message:
          `${s.listen as string} can be reached from other machines: set status.authTokenFile (a token that ` +
          'the browser or Prometheus sends as bearer token or basic-auth password), or ' +
          'status.allowUnauthenticated: true on a trusted network',
      });
    }
  })
  .prefault({});

const employeesSchema = z
  .strictObject({
    /** CSV column -> payload field for `employees import` (the sending side keeps its names). */
    columns: z.record(z.string(), z.string()).default({}),
    /** Payload fields a row must carry before anything is sent. */
    required: z.array(z.string()).default(['username']),
    /** Payload field that identifies an employee in update/disable/import (the seed allows username, e-mail or employee ID). */
    identifyBy: z.string().min(1).default('username'),
    /** Type hints for custom payload fields (values are otherwise sent as strings). */
    types: z
      .record(z.string(), z.enum(['string', 'integer', 'number', 'boolean', 'date', 'email', 'url', 'nullable-string']))
      .default({}),
  })
  .prefault({});

/** `terminals sync-users`, `restore-user`, `copy-templates` (issue 16). */
const terminalUsersSchema = z
  .strictObject({
    /** Backups of removed users (record and fingerprint templates) are deleted after this many days. */
    backupRetentionDays: z.number().int().min(1).max(3650).default(90),
    /**
     * The most users one sync-users run removes from one terminal (leavers and, with
     * --remove-absent, strangers); more and nobody is removed. Default: a tenth of the users
     * the terminal holds, at least 3.
     */
    maxRemovals: z.number().int().min(0).optional(),
    /** `--from-hrms`: the employee record fields holding each roster column ("!field" reads a flag inverted). */
    fields: z
      .strictObject({
        code: z.string().min(1).default('biometriccode'),
        name: z.string().min(1).default('name'),
        card: z.string().min(1).optional(),
        active: z
          .string()
          .regex(/^!?[^!]+$/, 'must be a field name, or "!" and a field name to read it inverted')
          .default('!block'),
      })
      .prefault({}),
    /** `--from-hrms`: fetch filter (e.g. only this site's department). */
    filter: z
      .strictObject({
        status: z.string().optional(),
        department: z.string().optional(),
        designation: z.string().optional(),
      })
      .default({}),
  })
  .prefault({});

const logSchema = z
  .strictObject({ level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).default('info') })
  .prefault({});

export const configSchema = z
  .strictObject({
    site: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/, 'must be 1-32 letters, digits, "_" or "-"')
      .describe(
        'a name of this site, 1-32 letters, digits, "_" or "-", that starts every devicelogId sent: unique per gateway (e.g. plant-a)',
      ),
    journal: journalSchema.describe('the journal section, with its path (e.g. path: /var/lib/punchgate/journal.db)'),
    /** The seed HRMS: the default sink `hrms` (src/config/sinks.ts). */
    hrms: hrmsSchema.optional(),
    /** Further HRMS to deliver to (issue 32). */
    sinks: sinkListSchema,
    delivery: deliverySchema,
    terminals: z.array(terminalSchema).default([]),
    /** The receiver of push terminals (kind: adms); off unless set. */
    adms: admsSchema.optional(),
    status: statusSchema,
    employees: employeesSchema,
    terminalUsers: terminalUsersSchema,
    log: logSchema,
  })
  // Run even when other keys are wrong, so a name given twice is reported with them (duplicates.ts).
  .superRefine((c, ctx) => checkDuplicates(c, ctx), { when: () => true })
  // Likewise two listeners on one port (listen-collisions.ts).
  .superRefine((c, ctx) => checkListenCollisions(c, ctx), { when: () => true })
  .superRefine((c, ctx) => {
    checkPushTerminals(c, ctx);
    checkSinks(c, ctx);
  });

/** Push terminals (and Hikvision terminals that post) need the receiver. */
function checkPushTerminals(
  c: { adms?: unknown; terminals: readonly { kind: string; name: string; serial?: string; listen?: boolean }[] },
  ctx: z.RefinementCtx,
): void {
  c.terminals.forEach((t, i) => {
    if (t.kind === 'hikvision' && t.listen === true && !c.adms)
      ctx.addIssue({
        code: 'custom',
        path: ['terminals', i, 'listen'],
        message:
          'a Hikvision terminal that posts its events (listen: true) needs the receiver: set adms.listen, e.g. 0.0.0.0:8081',
      });
    if (t.kind !== 'adms' || t.serial === undefined) return;
    if (!c.adms)
      ctx.addIssue({
        code: 'custom',
        path: ['terminals', i, 'kind'],
        message: 'a push terminal (kind: adms) needs the receiver: set adms.listen, e.g. 0.0.0.0:8081',
      });
  });
}

export type Config = z.infer<typeof configSchema>;
export type { HrmsConfig } from './hrms.js';
export type { SinkConfig } from './sinks.js';
export type DeliveryConfig = Config['delivery'];
export type JournalConfig = Config['journal'];
export type TerminalUsersConfig = Config['terminalUsers'];
export type StatusConfig = Config['status'];
export type { AdmsConfig } from './adms.js';
