import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { wallClockAt, type Punch } from '../../src/punch.js';
import { acceptEvery, startScriptedHrms, type ScriptedHrms, type ScriptedReply } from '../helpers/scripted-hrms.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * `punchgate flush` (the built CLI, a real process) against an HRMS address that misbehaves.
 * A transport problem is not a verdict on punches: no split, no attempt charged, exit 75 and
 * one plain line. An answer that does not match the batch confirms nothing.
 */
const TOKEN = 'hostile-flush-token-77';

function recentPunches(n: number): Punch[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    terminal: 'gate-1',
    biometricCode: String(300 + i),
    logTime: wallClockAt(now - (n - i) * 60_000),
  }));
}

describe('flush against a hostile HRMS (real process)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let hrms: ScriptedHrms;
  let login: ScriptedHrms;

  beforeEach(async () => {
    tmp = tempDir('punchgate-hostile-');
    hrms = await startScriptedHrms(acceptEvery);
    login = await startScriptedHrms(() => ({ body: '<html><title>Sign in</title></html>' }));
    writeFileSync(tmp.path('token'), `${TOKEN}\n`);
    writeFileSync(
      tmp.path('punchgate.yaml'),
      [
        'site: plant-h',
        'journal: { path: journal.db }',
        `hrms: { baseUrl: "${hrms.url}", tokenFile: token, timeoutMs: 20000, connectTimeoutMs: 5000 }`,
        'delivery: { batchSize: 20, retry: { baseMs: 10, maxMs: 20 } }',
      ].join('\n'),
    );
    const j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-h', mode: 'owner' });
    j.ingest(recentPunches(20));
    j.close();
  });
  afterEach(async () => {
    await hrms.stop();
    await login.stop();
    tmp.cleanup();
  });

  /** The CLI in a child process (asynchronously: the scripted HRMS answers from this process). */
  const flush = (...args: string[]) => {
    const env: NodeJS.ProcessEnv = { ...process.env, TZ: 'UTC' };
    for (const k of [
      'PUNCHGATE_HRMS_TOKEN',
      'CREDENTIALS_DIRECTORY',
      'HTTP_PROXY',
      'HTTPS_PROXY',
      'http_proxy',
      'https_proxy',
    ])
      delete env[k];
    const child = spawn(
      process.execPath,
      ['dist/punchgate.js', '--config', tmp.path('punchgate.yaml'), 'flush', '--max-wait', '1', ...args],
      { env },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, out, err })),
    );
  };
  const rows = () => {
    const j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-h', mode: 'shared' });
    try {
      return j.queries.list();
    } finally {
      j.close();
    }
  };
  const untouched = () => rows().every((p) => p.state === 'pending' && p.attempts === 0);

  it('a redirect to a login page: one request, not followed, nothing charged, exit 75 naming the host', async () => {
    hrms.reply = () => ({ status: 302, headers: { location: `${login.url}/sso?return=/att` } });
    const r = await flush();
    expect(r.code).toBe(75);
    expect(r.err).toContain(
      `HRMS delivery to ${hrms.url}: request failed: the HRMS redirects to a sign-in page at ${new URL(login.url).host} (HTTP 302, not followed): the HRMS's API is behind a single sign-on or portal; ask its administrator to let /api.php/hrm/syncattendanceshiftwise/fetchBulkAttendanceFromAttendanceServer through with the token alone, and check hrms.baseUrl`,
    );
    expect(hrms.seen).toHaveLength(1);
    expect(login.seen).toHaveLength(0);
    expect(untouched()).toBe(true);
    expect(r.out + r.err).not.toContain(TOKEN);
  });

  it('an HTML error page from a firewall (4xx) or a proxy (407): one request each, nothing charged, exit 75', async () => {
    const pages: Array<[ScriptedReply, RegExp]> = [
      [
        { status: 403, body: '<html><title>Blocked by policy</title></html>' },
        /HTTP 403 with "Blocked by policy", not the HRMS's JSON/,
      ],
      [{ status: 400, body: '<html>Bad Request</html>' }, /HTTP 400 with/],
      [{ status: 407, body: '<html>proxy</html>' }, /the proxy refused the credentials \(HTTP 407\)/],
      [{ status: 404, body: { status: false, message: 'nope' } }, /does not know \/api.php\/hrm/],
      // A page echoing the token: the line quotes the page, never the token (the message is scrubbed).
      [
        { status: 403, body: `<html><title>Denied ${TOKEN}</title></html>` },
        /^HRMS delivery to \S+: request failed: the HRMS address answers HTTP 403 with "Denied \[REDACTED\]"/m,
      ],
    ];
    for (const [reply, line] of pages) {
      hrms.seen.length = 0;
      hrms.reply = () => reply;
      const r = await flush();
      expect(r.code, r.err).toBe(75);
      expect(r.err).toMatch(line);
      expect(r.out + r.err).not.toContain(TOKEN);
      expect(hrms.seen).toHaveLength(1);
      expect(untouched()).toBe(true);
    }
    // Once the way is clear, everything goes through, each punch charged once.
    hrms.reply = acceptEvery;
    expect((await flush()).code).toBe(0);
    expect(rows().every((p) => p.state === 'delivered' && p.attempts === 1)).toBe(true);
  });

  it('a refusal without a word, while an empty batch is taken: nothing charged; with the rest going through, only the punch refused', async () => {
    // Found by an adversarial trial: every punch was charged (and would have gone dead) by an HRMS
    // whose empty answer works while every real request fails.
    hrms.reply = (req) => ({ body: req.punches.length === 0 ? { Status: true, Payload: [] } : { Status: false } });
    const r = await flush();
    expect(r.code, r.err).toBe(75);
    expect(r.err).toContain('the HRMS refused every request with punches without saying why');
    expect(untouched()).toBe(true);
    // One punch the HRMS refuses without a word, the others taken: that one alone is charged.
    const bad = rows()[0]!.biometricCode;
    hrms.reply = (req) =>
      req.punches.some((p) => p.biometriccode === bad) ? { body: { Status: false } } : acceptEvery(req);
    expect((await flush()).code).toBe(0);
    const after = rows();
    expect(after.filter((p) => p.state === 'delivered')).toHaveLength(19);
    expect(after.find((p) => p.biometricCode === bad)).toMatchObject({ state: 'rejected', attempts: 1 });
  });

  it('a refusal about one punch in words of size, or naming a duplicate that is no record, is that punch refused, never the batch held', async () => {
    // Found by an adversarial trial: "exceeds the maximum of 4 punches per day" was read as the
    // batch's size, shrank it to that punch and held it at the head of the queue for ever; and a
    // refusal naming "duplicate employee records" counted the punch delivered; so did one saying
    // the day is "already marked as On Leave" (a later trial).
    const [first, second, third] = rows();
    hrms.reply = (req) => {
      if (req.punches.some((p) => p.biometriccode === first!.biometricCode))
        return {
          status: 400,
          body: {
            status: false,
            message: `Punch for employee ${first!.biometricCode} exceeds the maximum of 4 punches per day`,
          },
        };
      return {
        body: {
          Status: true,
          Payload: req.punches.map((p) =>
            p.biometriccode === second!.biometricCode
              ? { status: false, message: 'Punch not saved: duplicate employee records match this biometric code' }
              : p.biometriccode === third!.biometricCode
                ? {
                    status: false,
                    message: `Attendance for ${p.biometriccode} is already marked as On Leave for this date: punch refused`,
                  }
                : { status: true, message: 'Attendance added' },
          ),
        },
      };
    };
    const r = await flush();
    expect(r.code, r.err).toBe(0);
    const after = rows();
    expect(after.filter((p) => p.state === 'delivered')).toHaveLength(17);
    for (const refused of [first, second, third])
      expect(after.find((p) => p.biometricCode === refused!.biometricCode)).toMatchObject({ state: 'rejected' });
  });

  it('answers that do not match the batch confirm nothing: still pending, uncharged, exit 75', async () => {
    const wrong: Array<(punches: number) => unknown> = [
      // more results than punches
      (n) => ({ Status: true, Payload: Array.from({ length: n + 5 }, () => ({ status: true, message: 'ok' })) }),
      // punches never sent
      (n) => ({
        Status: true,
        Payload: Array.from({ length: n }, (_, i) => ({ status: true, message: 'ok', devicelogId: `other-${i}` })),
      }),
      // overall failure with results
      (n) => ({ Status: false, Payload: Array.from({ length: n }, () => ({ status: true, message: 'ok' })) }),
      // a status that means nothing
      (n) => ({ Status: true, Payload: Array.from({ length: n }, () => ({ status: 'yes', message: 'ok' })) }),
    ];
    for (const body of wrong) {
      hrms.reply = (req) => ({ body: body(req.punches.length) });
      const r = await flush();
      expect(r.code, r.err).toBe(75);
      expect(untouched()).toBe(true);
    }
  }, 120_000);
});
