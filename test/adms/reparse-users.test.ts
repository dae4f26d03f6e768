import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runPunchgate } from '../helpers/cli.js';
import { expectNoSecret } from '../helpers/secret.js';
import { http, startReceiver, terminal } from './harness.js';

const SN = 'CQZ7233461467';

describe('punchgate terminals reparse and kept user records', () => {
  it('says plainly that kept OPERLOG user lines hold users, not punches, and leaves them kept', async () => {
    const r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    try {
      // A USER line without a PIN (as a unit with a half-enrolled user sends it), CRLF, no final LF.
      const body =
        'USER PIN=1001\tName=Ana\tPri=0\tPasswd=\tCard=0\r\nUSER PIN=\tName=Ghost\tPri=0\tPasswd=4321\tCard=0';
      expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=OPERLOG&Stamp=9`, body)).toEqual({
        status: 200,
        body: 'OK:2',
      });
      expect(r.store.keptUploads('lobby').map((k) => k.table)).toEqual(['OPERLOG']);
    } finally {
      await r.stop(true);
    }
    const config = r.tmp.path('punchgate.yaml');
    writeFileSync(
      config,
      stringify({
        site: 'adms',
        journal: { path: 'journal.db' },
        hrms: { baseUrl: 'http://127.0.0.1:9' },
        adms: { listen: '127.0.0.1:0' },
        terminals: [{ name: 'lobby', kind: 'adms', serial: SN, timezone: 'UTC' }],
      }),
    );
    try {
      const out = await runPunchgate(['--config', config, 'terminals', 'reparse', 'lobby']);
      expect(out.status).toBe(0);
      expect(out.stdout).not.toContain('tables this punchgate does not read');
      expect(out.stdout).toContain(
        '1 kept upload(s) of user records (OPERLOG, USERINFO, user table) hold lines of users punchgate could not read, not punches',
      );
      expect(out.stdout).toContain('no attendance is missing');
      expectNoSecret(out.stdout, '4321');
      const json = await runPunchgate(['--config', config, 'terminals', 'reparse', 'lobby', '--json']);
      expect(JSON.parse(json.stdout)).toMatchObject({ uploads: 0, users: 1, unread: 0 });
    } finally {
      r.tmp.cleanup();
    }
  });
});
