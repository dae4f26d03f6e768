/**
 * The settings of one Odoo sink (`kind: odoo` in the config's `sinks:` list). The config helper
 * builds this from the YAML with these very names; defaults are applied by `odooDefaults`.
 */
export interface OdooSinkOptions {
  /** The Odoo server, e.g. https://erp.example.com (no path needed). */
  baseUrl: string;
  /** The database name (sent as X-Odoo-Database with JSON-2, the first argument with JSON-RPC). */
  database: string;
  /** 'json2' for Odoo 19 and later, 'jsonrpc' for Odoo 16 to 18, 'auto': read the server's version. */
  api?: 'auto' | 'json2' | 'jsonrpc';
  /** The API user's login (needed by JSON-RPC's authenticate; JSON-2 does not use it). */
  login?: string;
  /** The hr.employee field holding the terminal's code: 'barcode' (default), 'pin' or a custom field. */
  employeeField?: string;
  /** With no direction, an open attendance younger than this is closed by the next punch (default 16). */
  longestShiftHours?: number;
  /** Calls in flight at most (default 4). */
  concurrency?: number;
  /** Deadline of one call, ms (default 30000). */
  timeoutMs?: number;
  /** A private CA for Odoo's certificate. */
  caFile?: string;
  /** http:// to a host that is not loopback (the API key travels in clear). */
  allowInsecureHttp?: boolean;
  /** How long an employee's id found by its code is kept, seconds (default 300). */
  employeeCacheSeconds?: number;
}

export type ResolvedOdooOptions = Required<Omit<OdooSinkOptions, 'caFile' | 'login'>> &
  Pick<OdooSinkOptions, 'caFile' | 'login'>;

export function odooDefaults(o: OdooSinkOptions): ResolvedOdooOptions {
  return {
    baseUrl: o.baseUrl,
    database: o.database,
    api: o.api ?? 'auto',
    employeeField: o.employeeField ?? 'barcode',
    longestShiftHours: o.longestShiftHours ?? 16,
    concurrency: Math.max(1, Math.floor(o.concurrency ?? 4)),
    timeoutMs: o.timeoutMs ?? 30_000,
    allowInsecureHttp: o.allowInsecureHttp ?? false,
    employeeCacheSeconds: o.employeeCacheSeconds ?? 300,
    ...(o.caFile !== undefined ? { caFile: o.caFile } : {}),
    ...(o.login !== undefined ? { login: o.login } : {}),
  };
}
