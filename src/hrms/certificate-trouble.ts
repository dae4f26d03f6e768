/**
 * What is wrong with a server's certificate, from the error's words (node's code or its text), and
 * the fix for each: one helper for `check` (the HRMS and the other sinks) and the status, so that
 * none of them sends the admin after a CA file for a certificate that is trusted but expired, or
 * made for another host name (a trial: an expired certificate and a baseUrl written with the IP
 * address were both told "the CA in caFile does not sign the HRMS's certificate", which no CA
 * file mends).
 */
export type CertificateTrouble = 'expired' | 'not-yet-valid' | 'wrong-host' | 'untrusted';

/** The trouble named by `message`, or undefined when it is no certificate problem. */
export function certificateTrouble(message: string): CertificateTrouble | undefined {
  if (/CERT_HAS_EXPIRED|certificate has expired/i.test(message)) return 'expired';
  if (/CERT_NOT_YET_VALID|certificate is not yet valid/i.test(message)) return 'not-yet-valid';
  if (/ERR_TLS_CERT_ALTNAME_INVALID|does not match certificate's altnames/i.test(message)) return 'wrong-host';
  if (/CERT|certificate|self[- ]signed|\bTLS\b|\bSSL\b/i.test(message)) return 'untrusted';
  return undefined;
}

/** The names the certificate holds, as the HTTP client (http.ts) or node's error lists them ("DNS:hrms.example.com"). */
function namesHeld(message: string): string | undefined {
  const names = (/certificate is made for (.+?)(?:, not for |\s\(ERR_)/i.exec(message) ??
    /cert's altnames: (.+)$/i.exec(message))?.[1]?.trim();
  return names ? names.slice(0, 200) : undefined;
}

/**
 * The fix for a certificate that is trusted but not for now or not for this name, shown by the
 * server at `baseUrlKey` (`hrms.baseUrl`, `sinks[erp].baseUrl`); undefined for any other trouble
 * (an untrusted certificate: each caller names its own CA file key and words).
 */
export function certificateFix(message: string, baseUrlKey: string): string | undefined {
  const trouble = certificateTrouble(message);
  if (trouble === 'expired')
    return "the server's certificate has expired: ask its administrator to renew it; check this box's date too (a wrong clock shows a valid certificate as expired)";
  if (trouble === 'not-yet-valid')
    return "the server's certificate is not valid yet: check this box's date and time (timedatectl; an unset clock is often in the past)";
  if (trouble === 'wrong-host') {
    const names = namesHeld(message);
    return `the server's certificate is made for another name than the host in ${baseUrlKey}: write in ${baseUrlKey} the host name the certificate holds${names ? ` (${names})` : ''}, not an IP address or another alias`;
  }
  return undefined;
}

/** The status's short words for it; `keys`: where the settings are (`hrms`, `sinks[erp]`). */
export function certificateWords(message: string, keys: string): string | undefined {
  const trouble = certificateTrouble(message);
  if (trouble === 'expired') return "the HRMS's certificate has expired (renew it, or correct the box's clock)";
  if (trouble === 'not-yet-valid') return "the HRMS's certificate is not valid yet (the box's clock is behind)";
  if (trouble === 'wrong-host')
    return `the HRMS's certificate is made for another host name than the one in ${keys}.baseUrl`;
  if (trouble === 'untrusted') return `the HRMS's certificate is not trusted (${keys}.caFile, or the box's clock)`;
  return undefined;
}
