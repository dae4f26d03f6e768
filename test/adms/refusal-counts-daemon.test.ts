import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnDaemon, statusUrl, type DaemonProcess } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { pool } from '../helpers/pool.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';
import { attlog, http } from './harness.js';

/**
 * Issue 30, class 2, through `punchgate run`: refusals of strangers are kept in bounded rows, and
 * the counts the status, /metrics and `check` give stay whole beyond that bound (before, a flood
 * of 300 invented serials was told as "200 unknown serials pushing (200 requests refused)").
 * Variants: invented serials on every route and table, from 60 addresses, in two waves (the
 * receiver's pending bound, then the journal's kept bound); a configured serial spoofed from 210
 * addresses outside its allowFrom. The terminal's own punch reaches the HRMS once.
 */
const LOBBY = 'CQZ7232169501';
const FENCED = 'CQZ7232169502';

function get(url: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString()));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every kind of request a terminal sends, with the stamps of each table. */
const ROUTES: ((sn: string) => ['GET' | 'POST', string, string | undefined])[] = [
  (sn) => ['POST', `/iclock/cdata?SN=${sn}&table=ATTLOG&Stamp=9`, attlog(['1\t2026-11-01 08:00:00\t0\t1'])],
  (sn) => ['POST', `/iclock/cdata?SN=${sn}&table=OPERLOG&OPERLOGStamp=9`, 'USER PIN=1\tName=X\tPri=14\n'],
  (sn) => ['POST', `/iclock/cdata?SN=${sn}&table=ATTPHOTO&ATTPHOTOStamp=9`, 'PIN=1\n'],
  (sn) => ['GET', `/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1`, undefined],
  (sn) => ['POST', `/iclock/registry?SN=${sn}`, 'DeviceType=acc,~DeviceName=X'],
  (sn) => ['GET', `/iclock/getrequest?SN=${sn}`, undefined],
  (sn) => ['POST', `/iclock/querydata?SN=${sn}&type=tabledata&tablename=user`, 'user pin=1\n'],
  (sn) => ['POST', `/iclock/cdata?SN=${sn}&table=INVENTED${sn.length}`, 'x=1\n'],
];

describe('refusals of strangers are bounded and their counts whole, through punchgate run', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('230 invented serials in two waves and a serial spoofed from 210 addresses: one alert each, every request counted', async () => {
    const stack = await startPushStack({
      terminals: [
        { name: 'lobby', serial: LOBBY },
        { name: 'fenced', serial: FENCED, allowFrom: ['127.0.0.1'] },
      ],
      status: { listen: '127.0.0.1:0' },
    });
    const d: DaemonProcess = spawnDaemon(stack.configPath);
    // Also after a timeout: a daemon left running would load the shared machine.
    stop = async () => {
      d.child.kill('SIGTERM');
      const exit = await d.exited;
      await stack.stop();
      expect(exit, d.output().slice(-3000)).toEqual({ code: 0, signal: null });
    };

    const page = await statusUrl(d);
    await waitFor(() => /push terminal receiver listening/.test(d.output()), 15_000, 'the receiver');
    const own = attlog(['1001\t2026-11-02 08:00:00\t0\t1']);
    expect((await http(stack.url, 'POST', `/iclock/cdata?SN=${LOBBY}&table=ATTLOG&Stamp=1`, own)).status).toBe(200);
    const invented = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, k) => {
        const i = from + k;
        const [method, path, body] = ROUTES[i % ROUTES.length]!(`FAKE${'Z'.repeat(i % 40)}${i}`);
        return async () => (await http(stack.url, method, path, body, {}, `127.0.8.${1 + (i % 60)}`)).status;
      });
    const refused = async (reason: string) =>
      Number(
        new RegExp(`^punchgate_push_refused_requests\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(
          await get(page, '/metrics'),
        )?.[1],
      );
    // Wave 1: 220 serials (beyond the receiver's pending bound of 200) and 210 spoofed addresses.
    const spoofs = Array.from(
      { length: 210 },
      (_, i) => async () =>
        (
          await http(
            stack.url,
            'GET',
            `/iclock/ping?SN=${FENCED}`,
            undefined,
            {},
            `127.0.${9 + (i >> 7)}.${1 + (i & 127)}`,
          )
        ).status,
    );
    const first = await pool(6, [...invented(0, 220), ...spoofs]);
    expect(first.every((s) => s === 403)).toBe(true);
    await waitFor(
      async () => (await refused('unknown-serial')) === 220,
      60_000,
      '220 unknown-serial refusals in /metrics',
    );
    // Wave 2, written after the first: beyond the journal's kept bound of 200.
    expect((await pool(6, invented(220, 230))).every((s) => s === 403)).toBe(true);
    await waitFor(
      async () => (await refused('unknown-serial')) === 230,
      60_000,
      '230 unknown-serial refusals in /metrics',
    );
    expect(await refused('outside-allowfrom')).toBe(210);

    const status = JSON.parse((await runPunchgate(['--config', stack.configPath, 'status', '--json'])).stdout) as {
      alerts: string[];
      pushRefusals: unknown[];
    };
    expect(status.alerts.filter((a) => /unknown serials? (are |were )?pushing|SN=FAKE/.test(a))).toEqual([
      expect.stringMatching(/^more than 200 unknown serials are pushing \(230 requests refused, from 127\.0\.8\.\d+, /),
    ]);
    expect(status.alerts.filter((a) => a.includes(`SN=${FENCED}`))).toEqual([
      expect.stringMatching(/is pushing from more than 200 addresses outside its allowFrom \(210 requests refused/),
    ]);
    // Kept rows: 200 a reason by name, and one summing row each.
    expect(status.pushRefusals.length).toBeLessThanOrEqual(402);
    // `check` says them as the status does: one line each, whole counts, never a serial "*".
    const check = (await runPunchgate(['--config', stack.configPath, 'check'])).stdout;
    expect(check).toMatch(/WARN unknown serials: more than 200 unknown serials are pushing \(230 requests refused/);
    expect(check).toMatch(
      /WARN terminal SN=CQZ7232169502: .*\(fenced\) is pushing from more than 200 addresses outside its allowFrom \(210 requests refused/,
    );
    expect(check.split('\n').filter((l) => /pushing/.test(l))).toHaveLength(2);
    expect(check).not.toContain('SN=*');
    // The terminal's own punch, once.
    await waitFor(() => stack.hrms.attendance().length >= 1, 20_000, 'its punch delivered');
    expect(stack.hrms.attendance().map((p) => p.biometriccode)).toEqual(['1001']);
  }, 240_000);
});
