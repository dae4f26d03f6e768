import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A self-signed certificate for 127.0.0.1, made with openssl in `dir` (no private key is
 * committed). It is its own CA, so it is what hrms.caFile names. `name` names the files and the
 * certificate's CN, for a test that needs several.
 */
export function selfSignedCert(
  dir: string,
  name = 'hrms',
): { key: string; cert: string; certFile: string; keyFile: string } {
  const keyFile = join(dir, `${name}-key.pem`);
  const certFile = join(dir, `${name}-cert.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      `/CN=${name === 'hrms' ? '127.0.0.1' : name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile, keyFile };
}
