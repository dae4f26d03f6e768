import { readFileSync } from 'node:fs';
import { Agent, type Dispatcher } from 'undici';
import type { HrmsConfig } from '../config/schema.js';

/**
 * One HTTP connection pool to the HRMS with the deadlines of the config:
 * connect timeout, then `timeoutMs` for the response headers and for the body.
 * A private CA (`hrms.caFile`) is trusted in addition to nothing else: when set, it is the
 * only CA used for this host, as an internal HRMS usually has its own.
 */
export function createHrmsDispatcher(cfg: Pick<HrmsConfig, 'timeoutMs' | 'connectTimeoutMs' | 'caFile'>): Dispatcher {
  const ca = cfg.caFile ? readFileSync(cfg.caFile, 'utf8') : undefined;
  return new Agent({
    connect: { timeout: cfg.connectTimeoutMs, ...(ca ? { ca } : {}) },
    headersTimeout: cfg.timeoutMs,
    bodyTimeout: cfg.timeoutMs,
    // One request at a time is the delivery rule; keep the pool small and the socket warm.
    connections: 2,
    keepAliveTimeout: 30_000,
  });
}

/** `{base_url}` + path, keeping any path prefix of the base URL. */
export function hrmsUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}
