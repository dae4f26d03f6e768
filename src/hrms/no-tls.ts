/**
 * An `https://` address whose server answers in plain HTTP: OpenSSL's "wrong version number"
 * (ERR_SSL_WRONG_VERSION_NUMBER). It is no certificate problem, and the fix is in the address (its
 * scheme or its port), never in a caFile: one helper names it for the HTTP client, check and the
 * status, so that none of them sends the admin after a CA (found by a new-user trial, who wrote
 * `https://` for a server of `http://`, and was told its certificate was not trusted).
 */
export const NO_TLS_CODE = 'ERR_SSL_WRONG_VERSION_NUMBER';

/** The client's words for it (OpenSSL's own, `80FC...:error:0A00010B:SSL routines:...`, say nothing to an admin). */
export const NO_TLS_WORDS = `the server answers in plain HTTP there, not HTTPS (${NO_TLS_CODE})`;

/** Whether an error's text is this one, as the client or OpenSSL wrote it. */
export function speaksNoTls(message: string): boolean {
  return message.includes(NO_TLS_CODE) || /\bwrong version number\b/i.test(message);
}

/** What to try, for the address at `key` (`hrms.baseUrl`, `sinks[erp].baseUrl`). */
export function noTlsFix(key: string): string {
  return `${key} says https:// but the server answers plain HTTP on that port: correct the port to the server's HTTPS one (usually 443), or write http:// if it has no HTTPS (http:// to another box also needs allowInsecureHttp: true)`;
}
