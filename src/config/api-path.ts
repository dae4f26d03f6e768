import type { z } from 'zod';

/**
 * A server's address written with the API path that punchgate adds itself: the whole endpoint
 * copied from the HRMS's documentation (`https://hr.example.com/api.php/hrm/.../fetchBulk...`), or
 * its first part (`https://hr.example.com/api.php`). The address loads, and every request then
 * goes to the path twice (`/api.php/api.php/hrm/...`): a 404 at run time, a terminal's punches
 * piling up. Said at the config check instead, with the `file:line` and the address to write
 * (found by a new-user trial). A path prefix that is not the API's (`https://host/hr`) stays valid.
 */

/** The part of `address`'s path that repeats the start of one of `apiPaths`, or null. */
export function repeatedApiPath(
  address: string,
  apiPaths: readonly string[],
): { repeated: string; base: string } | null {
  if (!URL.canParse(address)) return null;
  const u = new URL(address);
  const segments = u.pathname.split('/').filter((s) => s !== '');
  for (const apiPath of apiPaths) {
    const api = apiPath.split('/').filter((s) => s !== '');
    // The longest run first: `/api.php/hrm` is named whole, not as `/api.php`.
    for (let k = Math.min(api.length, segments.length); k >= 1; k--) {
      const tail = segments.slice(segments.length - k);
      if (tail.every((s, i) => s === api[i])) {
        const prefix = segments.slice(0, segments.length - k);
        // The origin and the prefix only: a query may hold a key (addressShown), never shown.
        return { repeated: `/${tail.join('/')}`, base: `${u.origin}${prefix.map((s) => `/${s}`).join('')}` };
      }
    }
  }
  return null;
}

/** A config issue on `baseUrl` when it ends in the API path punchgate adds (`whose`: which key adds it). */
export function checkApiPath(
  s: { baseUrl: string },
  apiPaths: readonly string[],
  whose: string,
  ctx: z.RefinementCtx,
): void {
  const found = repeatedApiPath(s.baseUrl, apiPaths);
  if (found === null) return;
  ctx.addIssue({
    code: 'custom',
    path: ['baseUrl'],
    message:
      `must be the server's address without the API path, which punchgate adds itself (${whose}), ` +
      `got one ending in "${found.repeated}" (every request would go to that path twice): ` +
      `write ${found.base}${new URL(s.baseUrl).search === '' ? '' : ' followed by its query (?...)'}`,
  });
}
