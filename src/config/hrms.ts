import { z } from 'zod';
import { checkApiPath } from './api-path.js';
import { hasScheme, webAddress } from './web-address.js';

/** The seed contract's path of the bulk attendance push. */
export const DEFAULT_ATTENDANCE_PATH = '/api.php/hrm/syncattendanceshiftwise/fetchBulkAttendanceFromAttendanceServer';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The keys of the seed HRMS (the `hrms:` block, and a sink of `kind: hrms`). */
export const hrmsFields = {
  /** The seed's {base_url}: scheme, host, optional port and path prefix. */
  // `.describe()`: what it expects, said when it is missing (issues.ts).
  baseUrl: webAddress('https://hr.example.com').describe(
    "the HRMS's address: scheme, host, optional port and path prefix (e.g. https://hr.example.com)",
  ),
  /** File holding the bearer token; re-read when it changes. Env PUNCHGATE_HRMS_TOKEN wins when set. */
  tokenFile: z.string().optional(),
  allowInsecureHttp: z.boolean().default(false),
  attendancePath: z.string().startsWith('/').default(DEFAULT_ATTENDANCE_PATH),
  /** Whole-request deadline (headers and body). */
  timeoutMs: z.number().int().min(100).default(30_000),
  connectTimeoutMs: z.number().int().min(100).default(10_000),
  /** Optional private CA (PEM) for the HRMS certificate. */
  caFile: z.string().optional(),
  /**
   * The HTTP proxy to reach the HRMS through (`http://[user:password@]host:port`); false: go direct
   * whatever HTTPS_PROXY / HTTP_PROXY say; absent: those variables decide, as curl does.
   */
  proxy: z
    .union([
      z.literal(false),
      z
        .string()
        .refine(
          (s) => URL.canParse(s) && ['http:', 'https:'].includes(new URL(s).protocol) && new URL(s).hostname !== '',
          'must be a URL such as http://proxy.example:3128 (or false)',
        ),
    ])
    .optional(),
  /** File holding the proxy's `user:password` (kept out of the config file). */
  proxyCredentialsFile: z.string().optional(),
  /** The neutral word in the user path: /api.php/system/<serviceWord>/updateUser. */
  serviceWord: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a single path word')
    .default('hrms'),
  /** Path of the user operations; default derived from serviceWord. */
  userPath: z.string().startsWith('/').optional(),
  /** Fetch Employee Master Data: open in the contract, so configurable. */
  employeeFetch: z
    .strictObject({
      path: z.string().startsWith('/').optional(),
      method: z.enum(['GET', 'POST']).default('GET'),
      params: z
        .strictObject({
          status: z.string().default('status'),
          department: z.string().default('department'),
          designation: z.string().default('designation'),
        })
        .prefault({}),
    })
    .prefault({}),
};

type HrmsFields = z.infer<z.ZodObject<typeof hrmsFields>>;

/** Checks across the seed HRMS's keys (proxy credentials in one place; https unless loopback or allowed). */
export function checkHrms(h: HrmsFields, ctx: z.RefinementCtx): void {
  if (h.proxyCredentialsFile !== undefined && h.proxy === false) {
    ctx.addIssue({
      code: 'custom',
      path: ['proxyCredentialsFile'],
      message: 'is set but hrms.proxy is false (no proxy to give them to)',
    });
  }
  if (h.proxyCredentialsFile !== undefined && typeof h.proxy === 'string' && URL.canParse(h.proxy)) {
    const u = new URL(h.proxy);
    if (u.username || u.password) {
      ctx.addIssue({
        code: 'custom',
        path: ['proxyCredentialsFile'],
        message: 'is set but hrms.proxy holds credentials too: give them in one place',
      });
    }
  }
  // Without its scheme the address has its own message (webAddress): not a second one here.
  if (!URL.canParse(h.baseUrl) || !hasScheme(h.baseUrl)) return;
  const userPath = h.userPath ?? `/api.php/system/${h.serviceWord}/updateUser`;
  checkApiPath(h, [h.attendancePath, userPath], 'attendancePath', ctx);
  const u = new URL(h.baseUrl);
  if (u.protocol === 'https:') return;
  if (u.protocol !== 'http:') {
    ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'must be an https:// URL' });
  } else if (!isLoopbackHost(u.hostname) && !h.allowInsecureHttp) {
    ctx.addIssue({
      code: 'custom',
      path: ['baseUrl'],
      message: 'must be an https:// URL (http:// is accepted for loopback hosts, or with hrms.allowInsecureHttp: true)',
    });
  }
}

/** The paths derived from serviceWord where not given. */
export function completeHrms<T extends HrmsFields>(h: T) {
  return {
    ...h,
    userPath: h.userPath ?? `/api.php/system/${h.serviceWord}/updateUser`,
    employeeFetch: {
      ...h.employeeFetch,
      path: h.employeeFetch.path ?? `/api.php/system/${h.serviceWord}/fetchEmployees`,
    },
  };
}

export const hrmsSchema = z.strictObject(hrmsFields).superRefine(checkHrms).transform(completeHrms);
export type HrmsConfig = z.infer<typeof hrmsSchema>;
