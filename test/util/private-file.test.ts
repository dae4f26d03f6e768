import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

/**
 * writePrivateFile on a disk that fills while it writes (the last good config, the status token):
 * the file under its name stays as it was, and no half-written temporary file is left beside it
 * (a full disk left an empty config.last-good.yaml.tmp: found by the storage trial). Runs the
 * built module (npm run build) in a child process with a file size limit.
 */
describe('writePrivateFile on a full disk', () => {
  it('fails, keeps the old file whole and leaves no temporary file', () => {
    const tmp = tempDir();
    try {
      const path = tmp.path('config.last-good.yaml');
      writeFileSync(path, 'site: plant-a\n');
      // A real process whose files may not grow past 4 KiB (ulimit -f, 512-byte blocks): the write fails with EFBIG.
      const script = `import(${JSON.stringify(resolve('dist/src/util/private-file.js'))}).then((m) => {
        try { m.writePrivateFile(${JSON.stringify(path)}, 'x'.repeat(64 * 1024)); process.exit(0); }
        catch (e) { console.error(e.code); process.exit(3); }
      })`;
      const r = spawnSync('sh', ['-c', `trap '' XFSZ; ulimit -f 8; exec "${process.execPath}" -e "$0"`, script], {
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(3);
      expect(r.stderr).toContain('EFBIG');
      expect(readFileSync(path, 'utf8')).toBe('site: plant-a\n');
      expect(readdirSync(tmp.dir)).toEqual(['config.last-good.yaml']);
    } finally {
      tmp.cleanup();
    }
  });
});
