import { TLSSocket } from 'node:tls';
import type { buildConnector as BuildConnectorFn } from 'undici';
import { HikTlsError } from './errors.js';

type BuildConnector = typeof BuildConnectorFn;
type Connector = BuildConnectorFn.connector;

export interface TlsTrust {
  /** SHA-256 fingerprint to pin, `AB:CD:...` (as the config normalises it). */
  tlsFingerprint?: string;
  /** PEM of the CA that signed the device's certificate. */
  ca?: string | Buffer;
}

/** Node codes of a certificate that did not verify against the trusted CAs. */
const UNTRUSTED = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

/**
 * undici's connector with the device's trust rule. Verification is never switched off:
 * - `tlsFingerprint`: the certificate must be exactly the pinned one (checked on every new
 *   connection, with TLS session reuse off so that each handshake shows the certificate); a
 *   self-signed device certificate is fine then, since the pin is a stricter check than a CA.
 *   With `ca` too, the chain must also verify against it.
 * - `ca` alone: the chain and the host name must verify against that CA.
 * - neither: the system's CAs, as a browser would.
 */
export function trustingConnector(
  buildConnector: BuildConnector,
  trust: TlsTrust,
  timeoutMs: number,
  peer: string,
): Connector {
  const pin = trust.tlsFingerprint?.toUpperCase();
  const base = buildConnector({
    timeout: timeoutMs,
    ...(trust.ca ? { ca: trust.ca } : {}),
    rejectUnauthorized: pin === undefined || trust.ca !== undefined,
    ...(pin ? { maxCachedSessions: 0 } : {}),
  });
  return (options, callback) => {
    base(options, (err, socket) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException).code ?? '';
        if (UNTRUSTED.test(code)) {
          callback(
            new HikTlsError(
              `the certificate of ${peer} is not trusted (${code}): pin it with tlsFingerprint, or give the CA that signed it in caFile`,
            ),
            null,
          );
        } else callback(err, null);
        return;
      }
      if (pin && socket instanceof TLSSocket) {
        const presented = socket.getPeerCertificate().fingerprint256?.toUpperCase();
        if (presented !== pin) {
          socket.destroy();
          callback(
            new HikTlsError(
              `the certificate of ${peer} has the fingerprint sha256:${presented ?? 'unknown'}, not the pinned one: connection refused (a different device, or someone in between)`,
              presented,
            ),
            null,
          );
          return;
        }
      }
      callback(null, socket!);
    });
  };
}
