import { certificateFix } from './certificate-trouble.js';
import { noTlsFix, speaksNoTls } from './no-tls.js';

/**
 * What to try when the HRMS could not be reached, from the error's words: one helper for
 * `check`, the employee commands and the roster's fetch, so that they give the same advice.
 */
export function hrmsReachFix(
  message: string,
  ca?: { key: string; file: string },
  /** Where the HRMS's address is (`hrms.baseUrl`, or a seed sink's `sinks[x].baseUrl`). */
  baseUrlKey = 'hrms.baseUrl',
): string {
  // Before the certificate's advice: its words hold "SSL", and no CA mends an address.
  if (speaksNoTls(message)) return noTlsFix(baseUrlKey);
  // Expired, or made for another name: trusted all the same, so no CA file mends it.
  const trusted = certificateFix(message, baseUrlKey);
  if (trusted) return trusted;
  if (/CERT|certificate|self[- ]signed|TLS|SSL/i.test(message)) {
    // With a caFile set, "set caFile" is no help: the CA in it is not the one that signed the server.
    if (ca)
      return `the CA in ${ca.key} (${ca.file}) does not sign the HRMS's certificate: put in that file the PEM certificate of the CA that issued it (ask the HRMS administrator); check the box's clock too`;
    return "the HRMS certificate is not trusted: if it comes from a private CA, set hrms.caFile to that CA's PEM file; check the box's clock too";
  }
  if (/\(DEADLINE\)/.test(message))
    return 'the HRMS is slow to answer (a whole employee list can take it long): raise hrms.timeoutMs (e.g. 120000), or try again when it is less busy';
  if (/PROXY_CLOSED/.test(message))
    return "check the proxy's address and port (hrms.proxy or HTTPS_PROXY), and ask its administrator to let this box open tunnels (CONNECT) to the HRMS host";
  if (/ENOTFOUND|EAI_AGAIN/.test(message))
    return 'check the host name in hrms.baseUrl and the DNS settings of this box';
  return 'check hrms.baseUrl, the network route and firewall or proxy between this box and the HRMS, and that the HRMS is up';
}

/** What to try after a user call's failure of this kind; none for answers the HRMS's own message explains. */
export function userCallFix(kind: string, httpStatus: number | undefined, message: string): string | undefined {
  if (kind === 'auth')
    return 'put a valid token where hrms.tokenFile (or PUNCHGATE_HRMS_TOKEN) points; punchgate check tells whether the HRMS takes it';
  if (kind !== 'transient') return undefined;
  if (httpStatus === undefined) return hrmsReachFix(message);
  return 'try again later, or show this message to the HRMS administrator';
}
