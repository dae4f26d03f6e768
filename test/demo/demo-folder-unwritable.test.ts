import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { writeDemoRunConfig } from '../../src/demo/run-config.js';
import { EXIT, ExitError } from '../../src/util/exit-codes.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Found by an integrator's rehearsal (helper C4): demo.md says to copy config/demo.yaml to move its
 * ports, and that the copy may live anywhere; its journal goes to `../.demo/`, the folder above the
 * copy's. A copy in a folder whose parent the user cannot write (~/demo.yaml: /home/.demo) ended the
 * demo with a bare `punchgate: EACCES: permission denied, mkdir '/tmp/c4-nb/.demo'`, exit 1. Now the
 * folder, the key it comes from and the fix, exit 78. (As root no folder is unwritable: a file
 * where the folder should be makes the same failure.)
 */
describe('a demo config copy whose journal folder cannot be made', () => {
  const tmp = tempDir('punchgate-demo-folder-');
  afterEach(() => tmp.cleanup());

  it('says which folder, from which key, and the fix', () => {
    mkdirSync(tmp.path('cfg'));
    const config = tmp.path('cfg/demo.yaml');
    copyFileSync('config/demo.yaml', config);
    writeFileSync(tmp.path('.demo'), 'not a folder\n');
    let thrown: unknown;
    try {
      writeDemoRunConfig(config, 'seed', ['zk']);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ExitError);
    expect((thrown as ExitError).exitCode).toBe(EXIT.CONFIG);
    expect((thrown as ExitError).message).toBe(
      `${config}: journal.path: the demo cannot make the folder ${tmp.path('.demo')} for its journal ` +
        `(../.demo/journal.db, relative to the copy's folder ${tmp.path('cfg')}): a file that is not a folder is in the way: ` +
        `set journal.path and status.path in ${config} to a folder you can write (journal.path: .demo/journal.db puts it beside the copy)`,
    );
  });
});
