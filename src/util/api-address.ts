/**
 * `{address}` + an API path: the address's own path prefix kept, the API path after it, and the
 * address's query after that path (after the API path's own query, joined with `&`). An address
 * may carry a key as `?access_token=...` (issue 30); appended after it, the API path went into
 * the query and every request asked for `/` (the HRMS's 404), and a terminal's client dropped it
 * without a word. A fragment is never sent. One helper for the HRMS, the sinks and the terminals.
 */
export function withApiPath(address: string, path: string): string {
  const at = address.search(/[?#]/);
  const base = at < 0 ? address : address.slice(0, at);
  const query = at < 0 ? '' : address.slice(at).replace(/#.*$/s, '').slice(1);
  const joined = base.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
  if (query === '') return joined;
  return `${joined}${joined.includes('?') ? '&' : '?'}${query}`;
}
