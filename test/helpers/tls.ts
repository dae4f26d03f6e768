import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
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

/**
 * A test CA and one server certificate it signs, made with openssl `ca` in `dir`: `san` names the
 * host (default the loopback IP), `dates` a validity other than now (`['20200101000000Z',
 * '20200102000000Z']`: long expired). `caFile` is what a caFile setting names.
 */
export function caSignedCert(
  dir: string,
  opts: { san?: string; dates?: [start: string, end: string] } = {},
): { key: string; cert: string; caFile: string } {
  const at = (f: string) => join(dir, f);
  writeFileSync(
    at('ca.cnf'),
    [
      '[ca]',
      'default_ca = d',
      '[d]',
      `database = ${at('index.txt')}`,
      `new_certs_dir = ${dir}`,
      `serial = ${at('serial')}`,
      'default_md = sha256',
      'policy = p',
      'copy_extensions = copy',
      'unique_subject = no',
      'default_days = 2',
      '[p]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  writeFileSync(at('index.txt'), '');
  writeFileSync(at('serial'), '01\n');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  run(['req', '-x509', ...ec, '-keyout', at('ca-key.pem'), '-out', at('ca.pem'), '-days', '2', '-subj', '/CN=test-ca']);
  const san = opts.san ?? 'IP:127.0.0.1';
  run([
    'req',
    '-new',
    ...ec,
    '-keyout',
    at('leaf-key.pem'),
    '-out',
    at('leaf.csr'),
    '-subj',
    '/CN=hrms',
    '-addext',
    `subjectAltName=${san}`,
  ]);
  const dates = opts.dates ? ['-startdate', opts.dates[0], '-enddate', opts.dates[1]] : [];
  run([
    'ca',
    '-batch',
    '-config',
    at('ca.cnf'),
    '-cert',
    at('ca.pem'),
    '-keyfile',
    at('ca-key.pem'),
    '-in',
    at('leaf.csr'),
    '-out',
    at('leaf.pem'),
    '-notext',
    ...dates,
  ]);
  return {
    key: readFileSync(at('leaf-key.pem'), 'utf8'),
    cert: readFileSync(at('leaf.pem'), 'utf8'),
    caFile: at('ca.pem'),
  };
}
