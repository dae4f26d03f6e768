import { chmodSync, chownSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { isStartCopy, readFromStartCopy, serviceCanRead, tokenPickup } from '../../src/hrms/token-pickup.js';
import { tempDir } from '../helpers/tmp.js';

/** Whether a new token needs a restart: only when punchgate reads systemd's copy made at its start. */
describe('token pickup', () => {
  const tmp = tempDir('punchgate-pickup-');
  afterAll(() => tmp.cleanup());

  it("the file itself is re-read; systemd's copy is not", () => {
    expect(tokenPickup(false)).toBe('punchgate run re-reads it without a restart');
    expect(tokenPickup(true)).toMatch(/^then sudo systemctl restart punchgate, as the service does not re-read/);
    expect(
      isStartCopy('/run/credentials/punchgate.service/token', {
        CREDENTIALS_DIRECTORY: '/run/credentials/punchgate.service',
      }),
    ).toBe(true);
    expect(isStartCopy('/etc/punchgate/token', { CREDENTIALS_DIRECTORY: '/run/credentials/punchgate.service' })).toBe(
      false,
    );
    expect(isStartCopy('/etc/punchgate/token', {})).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'the service account reads a root:punchgate 0640 file, not a root 0600 one',
    () => {
      const passwd = tmp.path('passwd');
      writeFileSync(passwd, 'root:x:0:0::/root:/bin/sh\npunchgate:x:4321:4321::/var/lib/punchgate:/usr/sbin/nologin\n');
      const token = tmp.path('token');
      writeFileSync(token, 'x\n');
      chownSync(token, 0, 4321);
      chmodSync(token, 0o640);
      expect(serviceCanRead(token, passwd)).toBe(true);
      chmodSync(token, 0o600);
      expect(serviceCanRead(token, passwd)).toBe(false);
      expect(serviceCanRead(token, tmp.path('no-passwd'))).toBeUndefined();
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    "a restart only for the unit's token file: another file the service cannot read is no copy's source",
    () => {
      // Found by a rehearsal: a config of its own in /tmp, its token file root 0600, on a box where
      // the package had made the service account: check said "systemctl restart punchgate".
      const passwd = tmp.path('passwd-2');
      writeFileSync(passwd, 'root:x:0:0::/root:/bin/sh\npunchgate:x:4321:4321::/var/lib/punchgate:/usr/sbin/nologin\n');
      const unitTokenFile = tmp.path('etc-token');
      const other = tmp.path('rehearsal-token');
      for (const f of [unitTokenFile, other]) {
        writeFileSync(f, 'x\n');
        chownSync(f, 0, 0);
        chmodSync(f, 0o600);
      }
      expect(readFromStartCopy(unitTokenFile, {}, { passwd, unitTokenFile })).toBe(true);
      expect(readFromStartCopy(other, {}, { passwd, unitTokenFile })).toBe(false);
      chownSync(unitTokenFile, 0, 4321);
      chmodSync(unitTokenFile, 0o640);
      expect(readFromStartCopy(unitTokenFile, {}, { passwd, unitTokenFile })).toBe(false);
      const env = { CREDENTIALS_DIRECTORY: '/run/credentials/punchgate.service' };
      expect(readFromStartCopy('/run/credentials/punchgate.service/token', env, { passwd, unitTokenFile })).toBe(true);
      expect(readFromStartCopy(undefined, env)).toBe(false);
    },
  );
});
