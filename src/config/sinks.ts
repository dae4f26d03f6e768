import { z } from 'zod';
import { checkHrms, completeHrms, hrmsFields, isLoopbackHost, type HrmsConfig } from './hrms.js';
import { checkApiPath } from './api-path.js';
import { hasScheme, webAddress } from './web-address.js';
import { EXIT, ExitError } from '../util/exit-codes.js';
import { terminalName, timezone } from './terminals.js';

/**
 * The HRMS punchgate delivers to: the `sinks:` list (issue 32). Each sink has a `name` (the text
 * rule of terminal names: it appears in status lines, metric labels and `punches --sink`), a
 * `kind` and that kind's settings. The `hrms:` block of older configs stays, and is the sink named
 * `hrms` (the first, the default sink: sinksOf). A terminal names the sinks its punches go to
 * (`sinks: [names]`), else every sink. Secrets are files, never values (apiKeyFile, apiSecretFile).
 */

/** The Frappe methods an Employee Checkin is made with (frappe/hrms; before ERPNext 14, erpnext's). */
export const FRAPPE_METHODS = {
  hrms: 'hrms.hr.doctype.employee_checkin.employee_checkin.add_log_based_on_employee_field',
  erpnext: 'erpnext.hr.doctype.employee_checkin.employee_checkin.add_log_based_on_employee_field',
} as const;

/** The name the `hrms:` block's sink has. */
export const DEFAULT_SINK_NAME = 'hrms';

const url = webAddress('https://hr.example.com');
const secretFile = z.string().min(1, 'must name a file that holds the secret');
// `.describe()`: what a required key expects, said when it is missing (issues.ts).
const sinkName = terminalName.describe(
  "a name of the sink's own, used in the status and by punches --sink, and by terminals' sinks: (e.g. erp)",
);
const concurrency = z.number().int().min(1).max(16).default(4);
/** The paths punchgate adds to a Frappe site's and an Odoo server's address (src/sinks/frappe, odoo/api.ts). */
const FRAPPE_API_PATHS = ['/api/method', '/api/resource'];
const ODOO_API_PATHS = ['/json/2', '/jsonrpc', '/web/version'];

/** https, or http to a loopback host, or http where allowInsecureHttp says so. */
function checkHttps(s: { baseUrl: string; allowInsecureHttp: boolean }, ctx: z.RefinementCtx): void {
  if (!URL.canParse(s.baseUrl) || !hasScheme(s.baseUrl)) return;
  const u = new URL(s.baseUrl);
  if (u.protocol === 'https:') return;
  if (u.protocol !== 'http:' || (!isLoopbackHost(u.hostname) && !s.allowInsecureHttp))
    ctx.addIssue({
      code: 'custom',
      path: ['baseUrl'],
      message: 'must be an https:// URL (http:// is accepted for loopback hosts, or with allowInsecureHttp: true)',
    });
}

const seedSinkSchema = z
  .strictObject({ name: sinkName, kind: z.literal('hrms'), ...hrmsFields })
  .superRefine(checkHrms)
  .transform(completeHrms);

const frappeSinkSchema = z
  .strictObject({
    name: sinkName,
    kind: z.literal('frappe'),
    /** The site's address: https://erp.example.com. */
    baseUrl: url.describe("the Frappe site's address (e.g. https://erp.example.com)"),
    /** Files holding the API user's key and secret (sent as `token key:secret`). */
    apiKeyFile: secretFile.describe(
      "the file holding the API user's key, mode 0640 root:punchgate (e.g. /etc/punchgate/frappe-api-key)",
    ),
    apiSecretFile: secretFile.describe(
      "the file holding the API user's secret, mode 0640 root:punchgate (e.g. /etc/punchgate/frappe-api-secret)",
    ),
    /** hrms (Frappe HR, ERPNext 14 and later) or erpnext (ERPNext 13 and older): FRAPPE_METHODS. */
    method: z.enum(['hrms', 'erpnext']).default('hrms'),
    /** The Employee field that holds the code on the terminal. */
    employeeFieldname: z.string().min(1).default('attendance_device_id'),
    /** Calls in flight (one punch per call). */
    concurrency,
    timeoutMs: z.number().int().min(100).default(30_000),
    caFile: z.string().optional(),
    allowInsecureHttp: z.boolean().default(false),
    /** Shift types whose last_sync_of_checkin punchgate sets, with the terminals of each. */
    shiftSync: z
      .array(
        z.strictObject({
          shiftType: z.string().min(1).describe('the name of a Shift Type in Frappe (e.g. Night)'),
          terminals: z
            .array(terminalName)
            .min(1)
            .describe('the names of the terminals whose punches count for this shift type (e.g. [gate-1])'),
        }),
      )
      .optional(),
    /** How often the daemon sets the shift types (seconds). */
    shiftSyncIntervalSeconds: z.number().int().min(1).max(3600).default(60),
    /** The site's zone (System Settings → Time Zone): punch times and shift syncs converted to it. */
    timezone: timezone.optional(),
  })
  .superRefine(checkHttps)
  .superRefine((s, ctx) => checkApiPath(s, FRAPPE_API_PATHS, 'its API path /api/method/...', ctx));

const odooSinkSchema = z
  .strictObject({
    name: sinkName,
    kind: z.literal('odoo'),
    baseUrl: url.describe("the Odoo server's address (e.g. https://odoo.example.com)"),
    database: z.string().min(1).describe('the name of the Odoo database, the one chosen at sign-in (e.g. mycompany)'),
    /** json2 (Odoo 19 and later), jsonrpc (16 to 18), or auto: from the server's version. */
    api: z.enum(['auto', 'json2', 'jsonrpc']).default('auto'),
    /** The API user's login (JSON-RPC on Odoo 16-18 authenticates with it and the key). */
    login: z.string().min(1).optional(),
    /** File holding the API key. */
    apiKeyFile: secretFile.describe(
      "the file holding the Odoo user's API key, mode 0640 root:punchgate (e.g. /etc/punchgate/odoo-api-key)",
    ),
    /** The hr.employee field that holds the code on the terminal: barcode, pin or a custom field. */
    employeeField: z
      .string()
      .regex(/^[a-z_][a-z0-9_]*$/, 'must be a field name such as barcode, pin or x_device_code')
      .default('barcode'),
    /** Without a direction, a punch closes the open record only within this many hours. */
    longestShiftHours: z.number().min(1).max(48).default(16),
    concurrency,
    timeoutMs: z.number().int().min(100).default(30_000),
    caFile: z.string().optional(),
    allowInsecureHttp: z.boolean().default(false),
    /** How long the employees read from Odoo are used before they are read again. */
    employeeCacheSeconds: z.number().int().min(0).default(300),
  })
  .superRefine(checkHttps)
  .superRefine((s, ctx) => checkApiPath(s, ODOO_API_PATHS, 'its API paths /json/2/..., /jsonrpc, /web/version', ctx));

export const sinkSchema = z.discriminatedUnion('kind', [seedSinkSchema, frappeSinkSchema, odooSinkSchema]);
export const sinkListSchema = z.array(sinkSchema).default([]);

export type SeedSinkConfig = z.infer<typeof seedSinkSchema>;
export type FrappeSinkConfig = z.infer<typeof frappeSinkSchema>;
export type OdooSinkConfig = z.infer<typeof odooSinkSchema>;
export type SinkConfig = z.infer<typeof sinkSchema>;

/**
 * Whether a sink of this kind takes a punch only under a code one of its employees holds (Frappe
 * HR's employee field, Odoo's barcode, PIN or another field): a `card:<number>` punch it took is
 * held under the employee the admin gave that code there. The seed HRMS takes any code.
 */
export function matchesEmployees(kind: string | undefined): boolean {
  return kind === 'frappe' || kind === 'odoo';
}

/** The config's parts the sinks are read from. */
interface WithSinks {
  hrms?: HrmsConfig | undefined;
  sinks: readonly SinkConfig[];
  terminals: readonly { name: string; sinks?: readonly string[] | undefined }[];
}

/** Every sink, the `hrms:` block first (as the sink `hrms`): the first is the default sink (see the journal). */
export function sinksOf(c: WithSinks): SinkConfig[] {
  const block: SinkConfig[] = c.hrms ? [{ ...c.hrms, name: DEFAULT_SINK_NAME, kind: 'hrms' }] : [];
  return [...block, ...c.sinks];
}

/** The sinks a terminal's punches go to (its `sinks:`, else every sink); a terminal not in the config: every sink. */
export function sinksOfTerminal(c: WithSinks, terminal: string): string[] {
  const t = c.terminals.find((x) => x.name === terminal);
  return t?.sinks ? [...t.sinks] : sinksOf(c).map((s) => s.name);
}

/** The terminals (of the config) whose punches do not go to `sink`. */
export function terminalsNotFor(c: WithSinks, sink: string): string[] {
  return c.terminals.filter((t) => t.sinks !== undefined && !t.sinks.includes(sink)).map((t) => t.name);
}

/** Checks across sections: one HRMS at least, terminals naming sinks that exist (names given twice: duplicates.ts). */
export function checkSinks(
  c: { hrms?: unknown; sinks: readonly { name: string; kind: string; shiftSync?: { terminals: string[] }[] }[] } & {
    terminals: readonly { name: string; sinks?: readonly string[] | undefined }[];
  },
  ctx: z.RefinementCtx,
): void {
  if (c.hrms === undefined && c.sinks.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['hrms'], message: 'is required (or list the HRMS in sinks:)' });
    return;
  }
  // Names given twice are reported by checkDuplicates (duplicates.ts).
  const names = new Set<string>([...(c.hrms !== undefined ? [DEFAULT_SINK_NAME] : []), ...c.sinks.map((s) => s.name)]);
  const terminals = new Set(c.terminals.map((t) => t.name));
  c.sinks.forEach((s, i) =>
    s.shiftSync?.forEach((m, j) =>
      m.terminals.forEach((t, k) => {
        if (!terminals.has(t))
          ctx.addIssue({
            code: 'custom',
            path: ['sinks', i, 'shiftSync', j, 'terminals', k],
            message: `no terminal is named "${t}"`,
          });
      }),
    ),
  );
  c.terminals.forEach((t, i) =>
    t.sinks?.forEach((name, j) => {
      if (!names.has(name))
        ctx.addIssue({
          code: 'custom',
          path: ['terminals', i, 'sinks', j],
          message: `no sink is named "${name}" (the sinks are: ${[...names].join(', ')})`,
        });
    }),
  );
}

/**
 * The seed HRMS of the config (the `hrms:` block, else the first sink of kind hrms), for what only
 * the seed contract offers (employees, terminal user sync, the demo); undefined when there is none.
 */
export function seedHrmsOf(c: WithSinks): HrmsConfig | undefined {
  if (c.hrms) return c.hrms;
  const s = c.sinks.find((x): x is SeedSinkConfig => x.kind === 'hrms');
  if (!s) return undefined;
  const { name: _name, kind: _kind, ...hrms } = s;
  return hrms;
}

/** seedHrmsOf, or a config error (78) naming what needs it. */
export function requireSeedHrms(c: WithSinks, what: string): HrmsConfig {
  const h = seedHrmsOf(c);
  if (!h)
    throw new ExitError(`${what} needs the seed HRMS: an hrms: block, or a sink of kind hrms in sinks:`, EXIT.CONFIG);
  return h;
}

/**
 * Where a sink's credential is set, for a fix to name: the `hrms:` block's tokenFile, or the
 * files of `sinks[NAME]` by its kind (a Frappe sink has a key and a secret, Odoo a key only).
 * `fromHrmsBlock`: the sink is the config's `hrms:` block.
 */
export function credentialPlace(sink: { name: string; kind: string }, fromHrmsBlock = false): string {
  if (fromHrmsBlock) return 'hrms.tokenFile';
  if (sink.kind === 'frappe') return `sinks[${sink.name}].apiKeyFile and apiSecretFile`;
  if (sink.kind === 'odoo') return `sinks[${sink.name}].apiKeyFile`;
  return `sinks[${sink.name}].tokenFile`;
}

/**
 * What else an Odoo refusal can mean: Odoo answers a wrong login the way it answers a wrong key
 * (authenticate answers false), and a key may belong to another database's user, so the fix names
 * all three. (A database the server lacks is PostgreSQL's error, said apart: sinks/odoo/failure.ts.)
 * "Put a valid credential in the key file" alone sent a new-user trial to replace a right key when
 * the login was wrong.
 */
export function odooAccountHint(sinkName: string): string {
  return `check sinks[${sinkName}].database and, for Odoo 16-18 (JSON-RPC), sinks[${sinkName}].login: the database and the user the API key belongs to`;
}
