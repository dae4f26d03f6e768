import { withApiPath } from '../util/api-address.js';

/**
 * What the HTTP clients on undici of the sources (Hikvision ISAPI: hikvision/http.ts, the BioTime
 * API: biotime/http.ts) share: undici loaded on first use only (a box without such a source
 * never loads it), and said plainly when it cannot be (it parses HTTP with WebAssembly, which
 * Node's --jitless turns off) instead of crashing the process; the peer named in messages; the
 * request target under the base URL's path prefix.
 */
export type Undici = typeof import('undici');
let undiciModule: Promise<Undici> | undefined;

/** undici, or `setupError` (the source's own words) when this Node runs without WebAssembly. */
export function loadUndiciOr(setupError: () => Error): Promise<Undici> {
  if ((globalThis as { WebAssembly?: unknown }).WebAssembly === undefined) return Promise.reject(setupError());
  undiciModule ??= import('undici');
  return undiciModule;
}

/** `host:port` of a base URL, the port said even when it is the scheme's default. */
export function peerOf(base: URL): string {
  const port = base.port || (base.protocol === 'https:' ? '443' : '80');
  return `${base.hostname}:${port}`;
}

/**
 * The request target: the base URL's path prefix (if any), the API path, and the base URL's query
 * after it (withApiPath, as the HRMS's address): a query was dropped without a word.
 */
export function targetUnder(base: URL, path: string): string {
  return withApiPath(`${base.pathname}${base.search}`, path);
}
