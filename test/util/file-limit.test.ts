import { describe, expect, it } from 'vitest';
import { openFilesLimit } from '../../src/util/file-limit.js';
import { boundByFileHandles } from '../../src/daemon/file-handles.js';
import { admsSchema } from '../../src/config/adms.js';
import { fileHandlesShort } from '../../src/status/file-handle-words.js';

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

  // A trial: under `ulimit -n 128` with one push terminal, the alert said "or lower
  // adms.maxConnections"; set to 8, then 6, it stayed, as the bound counted the default 64 from
  // one address besides. The fix now names a number, and that number clears the alert.
  it('names the adms.maxConnections that fits the limit, and that value clears the alert', () => {
    const short = boundByFileHandles(admsSchema.parse({ listen: '0.0.0.0:8081' }), 1, 128);
    expect(short.shortage).toMatchObject({ limit: 128, configured: 1024, maxConnections: 8, fitsWith: 6 });
    const words = fileHandlesShort(short.shortage!);
    expect(words.fix).toContain('or set adms.maxConnections to 6 or fewer (then sudo systemctl restart punchgate)');
    const lowered = admsSchema.parse({ listen: '0.0.0.0:8081', maxConnections: 6 });
    expect(boundByFileHandles(lowered, 1, 128)).toEqual({ adms: lowered });
    // Terminals and the page alone over the limit: only raising it helps, and only that is said.
    const crowded = boundByFileHandles(lowered, 100, 64);
    expect(crowded.shortage?.fitsWith).toBeUndefined();
    expect(fileHandlesShort(crowded.shortage!).fix).not.toContain('adms.maxConnections');
  });
});
