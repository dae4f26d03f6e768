import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { statusUrl } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { startPushDaemon } from './daemon-stack.js';
import { attlog, http } from './harness.js';

/**
 * The upload bodies an adversarial trial against `punchgate run` found answered OK with their
 * punches lost, or not said: a gzip body (was `OK:0`, its bytes kept mangled), a body without a
 * Content-Length (was `OK:0` before it came), a terminal that sends the same upload again and
 * again (never said). Counted: what the HRMS got, and what the status page's JSON says.
 */
const SN = 'CQZ7232169801';
const lines = (from: number, n: number) =>
  attlog(Array.from({ length: n }, (_, i) => `${from + i}\t2026-11-09 08:00:${String(i).padStart(2, '0')}\t0\t1\t0`));

describe('compressed, unlengthed and repeated uploads, through punchgate run', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('every punch delivered once, none answered OK unread, and the status says what the terminal does', async () => {
    const { stack, d, stop: stopAll } = await startPushDaemon({ terminals: [{ name: 'lobby', serial: SN }] });
    stop = stopAll;
    const upload = (stamp: number) => `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=${stamp}`;
    // Compressed: read.
    expect(await http(stack.url, 'POST', upload(1), gzipSync(lines(1000, 3)), { 'Content-Encoding': 'gzip' })).toEqual({
      status: 200,
      body: 'OK:3',
    });
    // The same upload again and again.
    for (let i = 0; i < 10; i++)
      expect(await http(stack.url, 'POST', upload(3), lines(3000, 2))).toEqual({ status: 200, body: 'OK:2' });
    // Then one without a length: refused, never OK, its lines not read as a request (last: the
    // next upload that goes through ends its alert).
    const unlengthed = await new Promise<string>((resolve) => {
      const s = connect({ host: '127.0.0.1', port: stack.port }, () => {
        s.write(`POST ${upload(2)} HTTP/1.1\r\nHost: gw\r\n\r\n`, () => setImmediate(() => s.write(lines(2000, 3))));
      });
      let got = '';
      s.on('data', (c) => (got += c.toString()));
      s.on('error', () => undefined);
      s.on('close', () => resolve(got));
    });
    expect(unlengthed).toMatch(/^HTTP\/1\.1 411 /);
    const page = await statusUrl(d);
    const alerts = async () =>
      ((await (await fetch(new URL('/status.json', page))).json()) as { alerts: string[] }).alerts.join('\n');
    await waitFor(async () => /push-repeats|sends the same ATTLOG upload/.test(await alerts()), 15_000, 'the alert');
    const said = await alerts();
    expect(said).toMatch(/terminal lobby: sends the same ATTLOG upload \(2 punches\) again and again/);
    expect(said).toMatch(/terminal lobby: an upload \(ATTLOG\) came without a Content-Length/);
    await waitFor(() => stack.hrms.attendance().length >= 5, 20_000, 'delivery');
    const delivered = stack.hrms
      .attendance()
      .map((p) => p.biometriccode)
      .sort();
    expect(delivered).toEqual(['1000', '1001', '1002', '3000', '3001']);
    expect(d.output()).not.toMatch(/cannot read as HTTP/);
  });
});
