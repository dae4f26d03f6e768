/**
 * Logs out (issue 34): punchgate's journald lines reach a central place with systemd's own tools,
 * priorities intact. A real `punchgate run` writes its lines for the journal (`<4>...`, what
 * journald reads from a unit's output with SyslogLevelPrefix); they become journal entries as
 * journald stores them (MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, _SYSTEMD_UNIT); the box's
 * systemd-journal-upload, configured by contrib/journald/journal-upload.conf (only its URL moved to
 * loopback, HTTP), sends them to a systemd-journal-remote configured by journal-remote.conf on
 * loopback; `journalctl` on the central files shows every line with its priority.
 *
 * What is not proven here: journald itself turning the `<N>` prefix into PRIORITY (there is no
 * journald without systemd as PID 1; that is journald's documented behaviour), TLS with the
 * example's certificates, and the Vector snippet (contrib/journald/vector.toml: no Vector here).
 * Root: the configs are read from /etc/systemd/journal-*.conf.d (removed afterwards).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRoot } from '../../bench/lib/package-box.js';
import { freePort } from '../../bench/lib/ports.js';
import { startStack } from '../daemon/stack.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const REMOTE = '/lib/systemd/systemd-journal-remote';
const UPLOAD = '/lib/systemd/systemd-journal-upload';
const HAVE = existsSync(REMOTE) && existsSync(UPLOAD);
const ROOT = isRoot();
if (!ROOT || !HAVE) {
  process.stdout.write(
    `test/package/journal-upload.test.ts: skipped: ${!ROOT ? 'it writes /etc/systemd/journal-*.conf.d (root)' : 'systemd-journal-remote is not installed (apt-get install systemd-journal-remote)'}; CI runs it\n`,
  );
}

/** Whether something accepts connections on a loopback port. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

const DROP_INS = {
  upload: '/etc/systemd/journal-upload.conf.d/punchgate-fleet-test.conf',
  remote: '/etc/systemd/journal-remote.conf.d/punchgate-fleet-test.conf',
};

describe.skipIf(!ROOT || !HAVE)(
  "systemd-journal-upload sends punchgate's journal lines to a central journal-remote",
  () => {
    const tmp = tempDir('punchgate-journal-upload-');
    const made: string[] = [];
    afterAll(() => {
      for (const f of Object.values(DROP_INS)) rmSync(f, { force: true });
      for (const d of made) rmSync(d, { recursive: true, force: true });
      tmp.cleanup();
    });

    it('every line arrives with its priority; the example configs are read without a complaint', async () => {
      // punchgate's own lines: a daemon whose terminal goes away (warnings) beside its info lines.
      const stack = await startStack({ terminals: 1 });
      const daemon = spawn(
        process.execPath,
        ['dist/punchgate.js', '--log-format', 'journal', 'run', '--config', stack.configPath],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, PUNCHGATE_HRMS_TOKEN: '' },
        },
      );
      let out = '';
      daemon.stdout.on('data', (b: Buffer) => (out += b.toString()));
      daemon.stderr.on('data', (b: Buffer) => (out += b.toString()));
      await waitFor(() => /^<6>.*punchgate running/m.test(out), 30_000, `the daemon's start (${out.slice(-2000)})`);
      await stack.terminals[0]!.stop();
      await waitFor(() => /^<[0-4]>/m.test(out), 60_000, `a warning about the terminal (${out.slice(-2000)})`);
      daemon.kill('SIGTERM');
      await new Promise((r) => daemon.once('exit', r));
      await stack.stop();
      const lines = out
        .split('\n')
        .map((l) => /^<([0-7])>(.*)$/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => ({ priority: m[1]!, message: m[2]! }));
      expect(new Set(lines.map((l) => l.priority)).size, out).toBeGreaterThanOrEqual(2);

      // As journald stores a unit's output lines: one entry each (journal export format).
      const start = Date.now() * 1000;
      const exported = lines
        .map((l, i) =>
          [
            `__REALTIME_TIMESTAMP=${start + i}`,
            `MESSAGE=${l.message}`,
            `PRIORITY=${l.priority}`,
            'SYSLOG_IDENTIFIER=punchgate',
            '_SYSTEMD_UNIT=punchgate.service',
            '_HOSTNAME=plant-t-box',
            '',
            '',
          ].join('\n'),
        )
        .join('');
      const boxJournal = tmp.path('box.journal');
      const toJournal = spawnSync(REMOTE, [`--output=${boxJournal}`, '-'], { input: exported, encoding: 'utf8' });
      expect(toJournal.status, toJournal.stderr).toBe(0);

      // The central receiver on loopback, with the example's journal-remote.conf.
      const port = await freePort();
      for (const f of Object.values(DROP_INS)) {
        const dir = join(f, '..');
        if (!existsSync(dir)) {
          mkdirSync(dir, { recursive: true });
          made.push(dir);
        }
      }
      writeFileSync(DROP_INS.remote, readFileSync('contrib/journald/journal-remote.conf'));
      const central = tmp.path('central');
      mkdirSync(central);
      const remote = spawn(REMOTE, [`--listen-http=127.0.0.1:${port}`, `--output=${central}/`], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let remoteOut = '';
      remote.stderr.on('data', (b: Buffer) => (remoteOut += b.toString()));
      remote.stdout.on('data', (b: Buffer) => (remoteOut += b.toString()));
      try {
        // The box's uploader with the example's journal-upload.conf, its URL moved to the receiver here.
        writeFileSync(
          DROP_INS.upload,
          readFileSync('contrib/journald/journal-upload.conf', 'utf8').replace(
            /^URL=.*$/m,
            `URL=http://127.0.0.1:${port}`,
          ),
        );
        await waitFor(() => accepts(port), 10_000, `the receiver (${remoteOut})`);
        const upload = spawnSync(UPLOAD, [`--file=${boxJournal}`, '--follow=no', `--save-state=${tmp.path('state')}`], {
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(upload.status, upload.stderr).toBe(0);
        expect(upload.stderr).not.toMatch(/Unknown key|Failed to parse/);
        await waitFor(
          () => readdirSync(central).some((f) => f.endsWith('.journal')),
          10_000,
          `a journal file at the receiver (${remoteOut})`,
        );
      } finally {
        remote.kill('SIGTERM');
        await new Promise((r) => remote.once('exit', r));
      }
      expect(remoteOut).not.toMatch(/Unknown key|Failed to parse/);

      // At the central place: every punchgate line, in order, with its priority.
      const got = spawnSync('journalctl', ['-D', central, '-o', 'json', 'SYSLOG_IDENTIFIER=punchgate'], {
        encoding: 'utf8',
      });
      expect(got.status, got.stderr).toBe(0);
      const entries = got.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { MESSAGE: string; PRIORITY: string; _SYSTEMD_UNIT: string });
      expect(entries.map((e) => ({ priority: e.PRIORITY, message: e.MESSAGE }))).toEqual(lines);
      expect(new Set(entries.map((e) => e._SYSTEMD_UNIT))).toEqual(new Set(['punchgate.service']));
      // journalctl -p warning on the central files picks out the box's warnings and errors.
      const warnings = spawnSync('journalctl', ['-D', central, '-p', 'warning', '-o', 'cat'], { encoding: 'utf8' });
      expect(warnings.stdout.trim().split('\n')).toEqual(
        lines.filter((l) => Number(l.priority) <= 4).map((l) => l.message),
      );
    });
  },
);
