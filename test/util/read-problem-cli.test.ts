import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

/**
 * A new-user trial: `employees import nope.csv` and `import nope.dat` said only `cannot read
 * (ENOENT)`, a code a site admin must look up; the token file already said `no such file`.
 */
describe('a file a command is given that does not exist', () => {
  it('is said in plain words by employees import (exit 66)', () => {
    const tmp = tempDir();
    try {
      const cfg = tmp.path('c.yaml');
      writeFileSync(tmp.path('token'), 't\n', { mode: 0o600 });
      writeFileSync(cfg, 'site: s\njournal:\n  path: j.db\nhrms:\n  baseUrl: https://hr.example\n  tokenFile: token\n');
      for (const args of [['employees', 'import', tmp.path('nope.csv')]]) {
        const r = spawnSync(process.execPath, ['dist/punchgate.js', '--config', cfg, ...args], { encoding: 'utf8' });
        expect(r.stderr).toMatch(/nope\.csv: cannot read \(ENOENT\): no such file/);
        expect(r.status).toBe(66);
      }
    } finally {
      tmp.cleanup();
    }
  });
});
