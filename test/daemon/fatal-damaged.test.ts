import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';
import { zeroOldPunchPage } from '../helpers/damaged-journal.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const csv = (n: number) =>
  `biometriccode,logDate\n${Array.from({ length: n }, (_, i) => `${1000 + (i % 50)},2026-10-01 ${String(6 + Math.floor(i / 3600)).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`).join('\n')}\n`;

describe('the daemon meets a damaged journal while it runs (found by a resource trial)', () => {
  it('says a restart will not mend it, and how to stop the restarts, never "exiting so that systemd restarts punchgate"', async () => {
    // An HRMS nobody answers at: delivery claims the oldest punches, and so reads the damaged page.
    const s = cliSandbox({ hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' }, status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    writeFileSync(s.tmp.path('token'), 'tok\n', { mode: 0o600 });
    writeFileSync(s.tmp.path('a.csv'), csv(3000));
    expect((await s.cli('import', s.tmp.path('a.csv'))).status).toBe(0);
    // The page of the oldest punches but one, zeroed: the start does not read it, the first claim does.
    const journal = s.tmp.path('journal.db');
    zeroOldPunchPage(journal);

    const r = await s.cli('run');
    // 74, which the unit's RestartPreventExitStatus= does not restart (a full disk's 75 is restarted).
    expect(r.status).toBe(74);
    const out = r.stdout + r.stderr;
    const fatal = out.split('\n').filter((l) => /"level":60/.test(l));
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toContain('is damaged (SQLITE_CORRUPT');
    expect(fatal[0]).toContain('A restart does not mend this');
    expect(fatal[0]).toContain('systemd does not start punchgate again (exit 74)');
    expect(fatal[0]).not.toContain('so that systemd restarts punchgate');
    // One line: no error line with SQLite's stack before it.
    expect(out.split('\n').filter((l) => /"level":50/.test(l) && /SQLITE_CORRUPT|stack/.test(l))).toEqual([]);
  });

  it('a journal damaged before the start stops it with 74 too, its line and last-stop record say why', async () => {
    const s = cliSandbox({ status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    // A card that lost the first page: "file is not a database" at the open.
    const fd = openSync(s.tmp.path('journal.db'), 'r+');
    writeSync(fd, Buffer.alloc(100), 0, 100, 0);
    closeSync(fd);
    const r = await s.cli('run');
    expect(r.status, r.stdout + r.stderr).toBe(74);
    expect(r.stdout + r.stderr).toContain('systemd does not start punchgate again (exit 74)');
    const stop = JSON.parse(readFileSync(s.tmp.path('journal.db.last-stop.json'), 'utf8')) as { exitCode: number };
    expect(stop.exitCode).toBe(74);
    // A one-shot command says the same journal problem with the 74 of every journal problem.
    expect((await s.cli('status')).status).toBe(74);
  });
});
