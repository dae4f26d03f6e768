import { describe, expect, it } from 'vitest';
import { openFilesLimit } from '../../src/util/file-limit.js';
import { boundByFileHandles } from '../../src/daemon/file-handles.js';
import { admsSchema } from '../../src/config/adms.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            64                   64                   files
`;

describe('the file handle limit and the push receiver bounds', () => {
  it('reads the soft limit of /proc/self/limits; unlimited or unreadable: none', () => {
    expect(openFilesLimit(() => LIMITS)).toBe(64);
    expect(openFilesLimit(() => LIMITS.replace('64                   64', 'unlimited            unlimited'))).toBe(
      undefined,
    );
    expect(
      openFilesLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBe(undefined);
    expect(openFilesLimit()).toBeGreaterThan(0);
  });

  it('lowers the receiver only when the limit is short, never below a few connections', () => {
    const adms = admsSchema.parse({ listen: '0.0.0.0:8081' });
    expect(boundByFileHandles(adms, 10, 524_288)).toEqual({ adms });
    expect(boundByFileHandles(adms, 10, undefined)).toEqual({ adms });
    const low = boundByFileHandles(adms, 100, 64);
    expect(low.adms.maxConnections).toBe(8);
    expect(low.adms.maxConnectionsPerAddress).toBe(8);
    expect(low.shortage).toMatchObject({ limit: 64, configured: 1024, maxConnections: 8 });
    const some = boundByFileHandles(adms, 2, 1024);
    // 1024 - (32 + 80 + 8) = 904, halved for the receiver's per-address backstop.
    expect(some.adms.maxConnections).toBe(452);
    expect(some.adms.maxConnectionsPerAddress).toBe(64);
  });
});
