import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { tempDir } from '../helpers/tmp.js';
import { selfSignedCert } from '../helpers/tls.js';

export interface TestCert {
  cert: string;
  key: string;
  /** `AB:CD:...` as Node and the config write it. */
  fingerprint: string;
  certFile: string;
}

/**
 * Test certificates made at test time with openssl (no private key is committed): a CA, a
 * device certificate it signed for 127.0.0.1, and self-signed device certificates (the one
 * self-signed maker of test/helpers/tls.ts).
 */
export function makeCerts() {
  const tmp = tempDir('punchgate-hik-tls-');
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const finish = (cert: string, key: string, certFile: string): TestCert => ({
    cert,
    key,
    fingerprint: new X509Certificate(cert).fingerprint256,
    certFile,
  });
  const selfSigned = (name: string) => {
    const made = selfSignedCert(tmp.dir, name);
    return { ...finish(made.cert, made.key, made.certFile), keyFile: made.keyFile };
  };
  const ca = selfSigned('test-ca');
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    '/CN=device',
    '-keyout',
    tmp.path('signed.key'),
    '-out',
    tmp.path('signed.csr'),
  );
  // The signed device certificate names the address it is reached at, as a CA check requires.
  writeFileSync(tmp.path('ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    tmp.path('signed.csr'),
    '-CA',
    ca.certFile,
    '-CAkey',
    ca.keyFile,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    tmp.path('ext.cnf'),
    '-out',
    tmp.path('signed.crt'),
  );
  return {
    ca,
    signed: finish(
      readFileSync(tmp.path('signed.crt'), 'utf8'),
      readFileSync(tmp.path('signed.key'), 'utf8'),
      tmp.path('signed.crt'),
    ),
    device: selfSigned('device-a'),
    other: selfSigned('device-b'),
    cleanup: tmp.cleanup,
  };
}
