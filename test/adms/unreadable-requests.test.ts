import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPushRefusals } from '../../src/check/adms-check.js';
import { SPEAKS_TLS } from '../../src/journal/types.js';
import { refusalAlerts } from '../../src/status/push.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Bytes sent as they are on a new connection; what came back before the receiver closed it. */
function raw(url: string, bytes: Buffer | string, localAddress?: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ port: Number(port), host: hostname, ...(localAddress ? { localAddress } : {}) }, () =>
      s.write(bytes),
    );
    let got = '';
    s.on('data', (d: Buffer) => (got += d.toString('latin1')));
    s.on('close', () => resolve(got));
    s.on('error', reject);
  });
}

/**
 * The start of a TLS 1.2 ClientHello, as any TLS client sends it first (RFC 5246 §6.2, §7.4.1.2:
 * record type 22, version 3.1, then a handshake of type 1). A terminal with its *HTTPS* switch
 * on sends this to the receiver; published setups show ZKTeco firmware (MB160, MB10-VL) pushing
 * to cloud servers over HTTPS, the switch one menu away from the server address.
 */
const clientHello = Buffer.concat([
  Buffer.from([0x16, 0x03, 0x01, 0x00, 0x2f, 0x01, 0x00, 0x00, 0x2b, 0x03, 0x03]),
  Buffer.alloc(32, 7),
  Buffer.from([0x00, 0x00, 0x02, 0x00, 0x2f, 0x01, 0x00]),
]);

/**
 * Requests the HTTP parser refuses before any handler sees them were answered 400 with no word in
 * the log or the status: the terminal looked switched off. A TLS handshake (HTTPS on) is now a
 * refusal shown where unknown terminals show, with the switch to turn off; other unreadable
 * requests (a space in the request's path, header lines ending in a bare LF) are logged with the
 * parser's reason, once in a while per address.
 */
describe('ADMS receiver: requests its HTTP parser cannot read', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('a terminal speaking HTTPS: answered 400, logged once, shown with what to switch off', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ7232160001')] });
    expect(await raw(r.url, clientHello)).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw(r.url, clientHello)).toMatch(/^HTTP\/1\.1 400 /);
    await waitFor(() => r!.store.refusals()[0]?.count === 2, 5_000, 'the two refusals recorded');
    const rows = r.store.refusals();
    expect(rows).toEqual([expect.objectContaining({ serial: SPEAKS_TLS, address: '127.0.0.1', count: 2 })]);
    const warned = r.log.lines().filter((l) => String(l.msg).includes('speaks HTTPS (TLS)'));
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toContain('turn HTTPS off');
    const shown = rows.map((x) => ({
      ...x,
      firstSeenAt: new Date(x.firstSeenAt).toISOString(),
      lastSeenAt: new Date(x.lastSeenAt).toISOString(),
    }));
    const [alert] = refusalAlerts(shown);
    expect(alert!.alert.kind).toBe('push-https');
    expect(alert!.alert.cause).toContain('HTTPS (TLS) from 127.0.0.1 (2 connections answered 400');
    expect(alert!.alert.fix).toContain('turn HTTPS off');
    const [check] = checkPushRefusals(rows, [terminal('lobby', 'CQZ7232160001')]);
    expect(check!.name).toBe('push over HTTPS');
  });

  it('a space in the path or bare-LF header lines: answered 400, the reason logged without the query', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ7232160001')] });
    const unreadable = () => r!.log.lines().filter((l) => String(l.msg).includes('cannot read as HTTP'));
    const bareLf =
      'POST /iclock/cdata?SN=CQZ7232160001&table=ATTLOG HTTP/1.1\nHost: x\nContent-Length: 25\n\n1\t2026-11-30 08:00:00\t0\t1\n';
    const spaced = 'GET /iclock/getrequest?SN=CQZ7232160001&INFO=Ver 6.60 Apr 28 2015,2,0 HTTP/1.1\r\nHost: x\r\n\r\n';
    expect(await raw(r.url, spaced)).toMatch(/^HTTP\/1\.1 400 /);
    await waitFor(() => unreadable().length === 1, 5_000, 'logged');
    const line = unreadable()[0]!;
    expect(line.msg).toContain('a device at 127.0.0.1');
    expect(line.request).toBe('GET /iclock/getrequest');
    expect(JSON.stringify(line)).not.toContain('INFO=');
    // The same address again within minutes: not logged again.
    expect(await raw(r.url, spaced)).toMatch(/^HTTP\/1\.1 400 /);
    // Header lines ending in a bare LF, from another address: logged for it.
    expect(await raw(r.url, bareLf, '127.0.0.2')).toMatch(/^HTTP\/1\.1 400 /);
    await waitFor(() => unreadable().length === 2, 5_000, 'the second address logged');
    expect(unreadable().map((l) => [l.address, l.request])).toEqual([
      ['127.0.0.1', 'GET /iclock/getrequest'],
      ['127.0.0.2', 'POST /iclock/cdata'],
    ]);
    expect(r.journal.queries.list()).toEqual([]);
    expect(r.store.refusals()).toEqual([]);
  });
});
