import type { HttpHeaders } from './http.js';
import { pageExcerpt } from './text.js';

/**
 * The plain words of a request that did not reach the attendance endpoint as it should. None of
 * these is a verdict on the punches: they go back to the queue uncharged and are sent again after
 * a backoff. Each message says what happened and what to check.
 */
/** A redirect's path that is a sign-in page (a single sign-on, a captive portal). */
const SIGN_IN = /login|log-in|signin|sign-in|\bsso\b|saml|oauth|openid|adfs|\bauth/i;

type Failure = { kind: 'request-failed'; httpStatus?: number; message: string };

export const requestFailure = {
  /**
   * 3xx: never followed (the token would go with it). Names where it points, not the whole URL.
   * `baseUrlKey`: where the failing sink's address is set (`hrms.baseUrl`, `sinks[erp].baseUrl`):
   * an Odoo sink's redirect told the admin to check hrms.baseUrl, a key that sink does not read.
   */
  redirect(
    status: number,
    headers: HttpHeaders,
    url: string | undefined,
    clean: (s: string) => string,
    baseUrlKey: string,
  ): Failure {
    const location = headers.location;
    const to = typeof location === 'string' && URL.canParse(location, url) ? new URL(location, url) : undefined;
    const from = url && URL.canParse(url) ? new URL(url) : undefined;
    const how = `(HTTP ${status}, not followed)`;
    let message: string;
    if (!to) message = `the HRMS answers with a redirect that says no place ${how}: check ${baseUrlKey}`;
    else if (from && to.host === from.host && to.protocol !== from.protocol)
      message = `the HRMS redirects to ${to.protocol}//${clean(to.host)} ${how}: check ${baseUrlKey} (it should use ${to.protocol.slice(0, -1)})`;
    else if (SIGN_IN.test(to.pathname))
      // A single sign-on or portal in front of the HRMS: no baseUrl mends it, the API path must pass.
      message = `the HRMS redirects to a sign-in page at ${clean(to.host)} ${how}: the HRMS's API is behind a single sign-on or portal; ask its administrator to let ${from ? clean(from.pathname) : 'the attendance path'} through with the token alone, and check ${baseUrlKey}`;
    else message = `the HRMS redirects to ${clean(to.host)} ${how}: check ${baseUrlKey}`;
    return { kind: 'request-failed', httpStatus: status, message };
  },

  /** 404/405, or the seed's "not a valid group, plugin name and API function" answer. */
  unknownPath(status: number, url: string | undefined, said?: string): Failure {
    const path = url && URL.canParse(url) ? new URL(url).pathname : 'the attendance path';
    const why = said ? `"${said}"` : `HTTP ${status}`;
    return {
      kind: 'request-failed',
      httpStatus: status,
      message: `the HRMS does not know ${path} (${why}): check hrms.baseUrl and hrms.attendancePath`,
    };
  },

  /** HTTP 407 from a proxy, as an answer or as its refusal of the CONNECT tunnel. */
  proxyAuth(status = 407): Failure {
    return {
      kind: 'request-failed',
      httpStatus: status,
      message:
        'the proxy refused the credentials (HTTP 407): check the user and password of hrms.proxy, hrms.proxyCredentialsFile or HTTPS_PROXY',
    };
  },

  /**
   * The proxy would not open a tunnel to the HRMS. A 502, 503 or 504 is the proxy saying it could
   * not reach the HRMS itself (down, or no route from the proxy): no rule of the proxy is at fault.
   * `baseUrlKey` as for redirect.
   */
  proxyRefused(status: number | undefined, baseUrlKey: string): Failure {
    const how = status !== undefined ? ` (HTTP ${status} from the proxy)` : '';
    const upstream = status === 502 || status === 503 || status === 504;
    return {
      kind: 'request-failed',
      ...(status !== undefined ? { httpStatus: status } : {}),
      message: upstream
        ? `the proxy could not reach the HRMS${how}: check that the HRMS is up and that the proxy can reach its host (${baseUrlKey})`
        : `the proxy refused to connect to the HRMS${how}: ask the proxy's administrator to let this box reach the HRMS host`,
    };
  },

  /** A 4xx answer that is not the HRMS's JSON: a firewall, a proxy or a web server's error page. `baseUrlKey` as for redirect. */
  notTheHrms(status: number, text: string, clean: (s: string) => string, baseUrlKey: string): Failure {
    const shown = pageExcerpt(text, clean);
    return {
      kind: 'request-failed',
      httpStatus: status,
      message: `the HRMS address answers HTTP ${status} with ${shown ? `"${shown}"` : 'an empty body'}, not the HRMS's JSON (a firewall, a proxy or the web server in front of the HRMS refuses the request): check ${baseUrlKey} and the way from this box to the HRMS`,
    };
  },
};
