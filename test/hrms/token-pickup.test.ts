import { chmodSync, chownSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { isStartCopy, serviceCanRead, tokenPickup } from '../../src/hrms/token-pickup.js';
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
});
