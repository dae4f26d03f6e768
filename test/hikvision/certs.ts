import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { tempDir } from '../helpers/tmp.js';

export interface TestCert {
  cert: string;
  key: string;
  /** `AB:CD:...` as Node and the config write it. */
  fingerprint: string;
  certFile: string;
}

/**
 * Test certificates made at test time with openssl (no private key is committed): a CA, a
 * device certificate it signed for 127.0.0.1, and self-signed device certificates.
 */
export function makeCerts() {
  const tmp = tempDir('punchgate-hik-tls-');
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const finish = (name: string): TestCert => {
    const cert = readFileSync(tmp.path(`${name}.crt`), 'utf8');
    return {
      cert,
      key: readFileSync(tmp.path(`${name}.key`), 'utf8'),
      fingerprint: new X509Certificate(cert).fingerprint256,
      certFile: tmp.path(`${name}.crt`),
    };
  };
  const selfSigned = (name: string) => {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      tmp.path(`${name}.key`),
      '-out',
      tmp.path(`${name}.crt`),
    );
    return finish(name);
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
    tmp.path('test-ca.key'),
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
    signed: finish('signed'),
    device: selfSigned('device-a'),
    other: selfSigned('device-b'),
    cleanup: tmp.cleanup,
  };
}
