import { spawn } from 'node:child_process';
import { fstatSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { createLogger, journalLine, prettyLine } from '../../src/util/logger.js';
import { freePort } from '../../bench/lib/ports.js';
import { unitEnvironment, unitNodeArgs } from '../../bench/lib/unit.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { COMM_KEY, punchTimes, startStack, TOKEN } from './stack.js';
import { expectNoSecret } from '../helpers/secret.js';

/** One journal entry as journald makes it from a stream line. */
interface Entry {
  priority: number;
  message: string;
}

/**
 * syslog_parse_priority(p, &priority, with_facility = false) of systemd (src/basic/syslog-util.c),
 * which journald's stdout stream calls on each line when its level prefix is on: `<` one to three
 * digits `>`; without the facility only a single digit 0..7 counts; otherwise the line is the
 * message whole, at the stream's default priority.
 */
function syslogParsePriority(line: string, priority: number): { priority: number; rest: string } {
  if (line[0] !== '<') return { priority, rest: line };
  const end = line.indexOf('>');
  if (end < 0) return { priority, rest: line };
  const k = end; // chars from '<' up to '>'
  const digit = (c: string | undefined) => (c !== undefined && c >= '0' && c <= '9' ? c.charCodeAt(0) - 48 : -1);
  let a = 0;
  let b = 0;
  let c: number;
  if (k === 2) c = digit(line[1]);
  else if (k === 3) {
    b = digit(line[1]);
    c = digit(line[2]);
  } else if (k === 4) {
    a = digit(line[1]);
    b = digit(line[2]);
    c = digit(line[3]);
  } else return { priority, rest: line };
  if (a < 0 || b < 0 || c < 0 || a || b || c > 7) return { priority, rest: line };
  return { priority: (priority & ~7) | c, rest: line.slice(k + 1) };
}

/**
 * A stand-in for journald's stdout stream (/run/systemd/journal/stdout): a unix stream socket
 * read as journald reads it (src/journal/journald-stream.c): the header systemd writes for the
 * service (identifier, unit, default priority, level prefix, forward to syslog, kmsg, console),
 * then one entry per line (split at newline and NUL), each through syslogParsePriority.
 */
async function fakeJournald(dir: string): Promise<{ server: Server; path: string; entries: Entry[] }> {
  const path = `${dir}/stdout`;
  const entries: Entry[] = [];
  const server = createServer((s) => {
    let buf = '';
    const header: string[] = [];
    s.setEncoding('utf8');
    s.on('data', (chunk: string) => {
      buf += chunk;
      for (;;) {
        const i = buf.search(/[\n\0]/);
        if (i < 0) break;
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (header.length < 7) {
          header.push(line);
          continue;
        }
        const defaultPriority = Number(header[2]);
        const levelPrefix = header[3] === '1';
        if (line === '') continue;
        const parsed = levelPrefix
          ? syslogParsePriority(line, defaultPriority)
          : { priority: defaultPriority, rest: line };
        entries.push({ priority: parsed.priority, message: parsed.rest });
      }
    });
  });
  await new Promise<void>((r) => server.listen(path, r));
  return { server, path, entries };
}

/** What systemd does for a service with StandardOutput=journal: a connected stream, and its header. */
async function serviceStream(path: string): Promise<{ socket: Socket; journalStream: string }> {
  const socket = connect(path);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  // identifier, unit id, priority (6 info), level prefix (1), forward to syslog, kmsg, console.
  socket.write('punchgate\npunchgate.service\n6\n1\n0\n0\n0\n');
  const fd = (socket as unknown as { _handle: { fd: number } })._handle.fd;
  const st = fstatSync(fd, { bigint: true });
  return { socket, journalStream: `${st.dev}:${st.ino}` };
}

/** `journalctl -p <max>`: the entries at that priority or more urgent. */
const atMost = (entries: Entry[], max: number) => entries.filter((e) => e.priority <= max);

describe('under systemd, the log is what journalctl shows: plain lines with their priority', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('info for each punch, warning when a terminal is away, info when it is back; journalctl -p warning selects the right lines; no secret', async () => {
    // The terminal is stopped and started again on its port: one below the ephemeral range.
    const stack = await startStack({ delivery: { batchSize: 100 }, terminalPorts: [await freePort()] });
    cleanups.push(() => stack.stop());
    const j = await fakeJournald(stack.tmp.dir);
    cleanups.push(() => new Promise((r) => j.server.close(r)));
    const { socket, journalStream } = await serviceStream(j.path);
    cleanups.push(() => socket.destroy());
    const t = stack.terminals[0]!;
    const next = punchTimes('2026-11-22', 14);
    for (let i = 0; i < 3; i++) t.addPunch({ userId: '1001', logTime: next() });

    const child = spawn(
      process.execPath,
      [...unitNodeArgs(), 'dist/punchgate.js', 'run', '--config', stack.configPath],
      {
        stdio: ['ignore', socket, socket],
        env: {
          ...process.env,
          ...unitEnvironment(),
          NOTIFY_SOCKET: '',
          PUNCHGATE_HRMS_TOKEN: '',
          JOURNAL_STREAM: journalStream,
          // A terminal away is polled at every tick (no backoff): "said once" is said over a poll a
          // second, and it is back at the next tick (the backoff has its own test).
          PUNCHGATE_TEST_MAX_SKIPPED_TICKS: '0',
        },
      },
    );
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    });
    const has = (p: number, re: RegExp) => j.entries.some((e) => e.priority === p && re.test(e.message));

    await waitFor(() => has(6, /^delivered 3 punches to the HRMS, 0 pending$/), 20_000, 'the delivery line at info');
    // The README's lines, as journalctl prints them: no JSON, no trailing fields.
    expect(j.entries.filter((e) => e.priority === 6).map((e) => e.message)).toEqual(
      expect.arrayContaining(['terminal gate-1: 3 new punches', 'delivered 3 punches to the HRMS, 0 pending']),
    );
    expect(j.entries.every((e) => !e.message.startsWith('{'))).toBe(true);
    expect(has(6, /^punchgate running/)).toBe(true);

    // The terminal goes away: one warning with the cause and the fix, in check's words.
    const port = t.port;
    await t.stop();
    await waitFor(
      () =>
        has(
          4,
          /^terminal gate-1: 127\.0\.0\.1:\d+ refused the connection: check terminals\[0\]\.host and terminals\[0\]\.port/,
        ),
      20_000,
      'the warning of the terminal away',
    );
    const away = j.entries.filter((e) => /refused the connection/.test(e.message));
    // Said once, not at every poll (polls run every second here).
    await new Promise((r) => setTimeout(r, 3000));
    expect(j.entries.filter((e) => /refused the connection/.test(e.message) && e.priority <= 4)).toHaveLength(
      away.filter((e) => e.priority <= 4).length,
    );
    const back = await startTerminalSim({ port, serialNumber: 'SN-1', commKey: COMM_KEY, punches: [] });
    cleanups.push(() => back.stop());
    await waitFor(
      () => has(6, /^terminal gate-1 answers again after \d+ s away: its polls work$/),
      20_000,
      'back at info',
    );

    // journalctl -p warning: the warnings and errors, and nothing of the punch narrative.
    const warnings = atMost(j.entries, 4);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.some((e) => /refused the connection/.test(e.message))).toBe(true);
    expect(warnings.some((e) => /new punch|delivered \d+ punch|answers again/.test(e.message))).toBe(false);
    // Nothing at err or above in a run where nothing failed.
    expect(atMost(j.entries, 3)).toEqual([]);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const all = j.entries.map((e) => e.message).join('\n');
    expectNoSecret(all, String(COMM_KEY));
    expect(all).not.toContain(TOKEN);
  }, 90_000);

  it('a config that does not load at start: its file:line lines at err (journalctl -p err shows why it stopped), exit 78', async () => {
    const tmp = tempDir('punchgate-journald-');
    cleanups.push(() => tmp.cleanup());
    const j = await fakeJournald(tmp.dir);
    cleanups.push(() => new Promise((r) => j.server.close(r)));
    const { socket, journalStream } = await serviceStream(j.path);
    cleanups.push(() => socket.destroy());
    const config = tmp.path('punchgate.yaml');
    writeFileSync(config, 'site: plant-j\njournal:\n  path: journal.db\nhrms:\n  baseURL: https://hr.example.com\n');
    const child = spawn(process.execPath, ['dist/punchgate.js', 'run', '--config', config], {
      stdio: ['ignore', socket, socket],
      env: { ...process.env, JOURNAL_STREAM: journalStream },
    });
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(78);
    await waitFor(() => atMost(j.entries, 3).length > 0, 20_000, 'the error lines');
    expect(atMost(j.entries, 3).map((e) => e.message)).toContain(
      `${config}:5: hrms.baseURL: unknown key: did you mean baseUrl?`,
    );
  }, 30_000);

  it('JSON stays for --log-format json and for a stream that is not the journal', () => {
    const lines: string[] = [];
    const dest = { write: (s: string) => void lines.push(s) };
    createLogger({ format: 'json', destination: dest }).warn({ terminal: 'gate-2' }, 'x');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, msg: 'x', terminal: 'gate-2' });
  });

  it('secrets stay redacted in the journal form, by key, as in JSON', () => {
    const lines: string[] = [];
    const log = createLogger({ format: 'journal', destination: { write: (s: string) => void lines.push(s) } });
    log.warn({ commKey: 808080, token: 'tok-secret-123', cfg: { password: 'pw-secret-9' } }, 'terminal gate-1: x');
    expect(lines[0]).toMatch(/^<4>terminal gate-1: x {2}/);
    expect(lines[0]).toContain('commKey=[REDACTED]');
    expect(lines[0]).toContain('token=[REDACTED]');
    for (const secret of ['808080', 'tok-secret', 'pw-secret']) expectNoSecret(lines[0]!, secret);
    // A message is one entry: a line break in it is written out, never an entry of its own.
    expect(journalLine(JSON.stringify({ level: 50, msg: 'a\nb' }))).toBe('<3>a\\x0ab\n');
    // And one line in the readable form (--log-format text) too.
    expect(prettyLine(JSON.stringify({ level: 50, msg: 'a\nb\rc' }))).toMatch(/^ ?ERROR a\\x0ab\\x0dc\n$/);
  });

  it("a terminal's error text with line breaks is one entry: the device cannot write a line of punchgate's own", async () => {
    const tmp = tempDir('punchgate-journald-');
    cleanups.push(() => tmp.cleanup());
    // A device at the terminal's address answers every request with an ISAPI ResponseStatus whose
    // statusString holds line breaks, a forged message of punchgate's on its own line among them.
    const FORGED = 'punchgate: journal /var/lib/punchgate/journal.db is DAMAGED: run rm -rf /var/lib/punchgate';
    const device = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n<ResponseStatus version="2.0"><statusCode>4</statusCode>` +
          `<statusString>Invalid Operation\n${FORGED}\r\nall punches deleted\u2028done</statusString>` +
          `<subStatusCode>notSupport</subStatusCode></ResponseStatus>`,
      );
    });
    await new Promise<void>((r) => device.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => device.close(r)));
    const port = (device.address() as AddressInfo).port;
    const j = await fakeJournald(tmp.dir);
    cleanups.push(() => new Promise((r) => j.server.close(r)));
    const { socket, journalStream } = await serviceStream(j.path);
    cleanups.push(() => socket.destroy());
    writeFileSync(tmp.path('hik.pass'), 'pw\n', { mode: 0o600 });
    const config = tmp.path('punchgate.yaml');
    writeFileSync(
      config,
      [
        'site: plant-j',
        'journal:',
        '  path: journal.db',
        'hrms:',
        '  baseUrl: http://127.0.0.1:9',
        'status:',
        '  listen: 127.0.0.1:0',
        'terminals:',
        '  - name: reception',
        '    kind: hikvision',
        `    url: http://127.0.0.1:${port}`,
        '    passwordFile: hik.pass',
        '    timezone: UTC',
        '',
      ].join('\n'),
    );
    const child = spawn(process.execPath, [...unitNodeArgs(), 'dist/punchgate.js', 'run', '--config', config], {
      stdio: ['ignore', socket, socket],
      env: { ...process.env, ...unitEnvironment(), NOTIFY_SOCKET: '', JOURNAL_STREAM: journalStream },
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    cleanups.push(() => child.kill('SIGKILL'));
    await waitFor(
      () =>
        j.entries.some((e) => e.message.startsWith('terminal reception: ') && e.message.includes('Invalid Operation')),
      20_000,
      "the warning quoting the device's answer",
    );
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const quoting = j.entries.filter((e) => e.message.includes('Invalid Operation'));
    expect(quoting.length).toBeGreaterThan(0);
    for (const e of quoting) {
      expect(e.priority).toBe(4);
      expect(e.message).toMatch(
        /^terminal reception: .*Invalid Operation\\x0apunchgate: journal .*\\x0d\\x0aall punches deleted\\u2028done/,
      );
    }
    // No entry is the device's: none starts with its forged text or its other lines.
    expect(j.entries.filter((e) => /^(punchgate: journal|all punches deleted)/.test(e.message))).toEqual([]);
  }, 60_000);
});
