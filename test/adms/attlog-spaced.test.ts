import { afterEach, describe, expect, it } from 'vitest';
import { http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7233461467';

describe('ATTLOG lines of eSSL and clone firmware: runs of spaces, NUL padding', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('reads lines separated by runs of spaces and lines padded with NULs, keeps raw only what is ambiguous', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    // CRLF, space runs, a TAB line padded with NULs, NULs after the last line, no final LF.
    const body = Buffer.concat([
      Buffer.from(
        [
          '1001    2026-11-30 08:01:02    0    1    0',
          '4x  2026-11-30 08:02:03  1  15',
          '  1002  2026-11-30 08:03:04',
          '1003\t2026-11-30 08:04:05\t0\t1\t0\t\t\t0\t0\t\u0000\u0000\u0000',
          // Ambiguous: no full date-time, or a name with a space where the PIN goes: kept raw.
          '1004    2026-11-30 08:05',
          'Ana Lima    2026-11-30 08:06:07    0    1',
        ].join('\r\n') + '\r\n',
      ),
      Buffer.from('1005      2026-11-30 08:07:08      0      1'),
      Buffer.alloc(16, 0),
    ]);
    const res = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`, body);
    expect(res).toEqual({ status: 200, body: 'OK:5' });
    const got = r.journal.queries
      .list()
      .map((p) => [p.biometricCode, p.logTime, p.punchState, p.verifyType])
      .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
    expect(got).toEqual([
      ['1001', '2026-11-30 08:01:02', 0, 1],
      ['4x', '2026-11-30 08:02:03', 1, 15],
      ['1002', '2026-11-30 08:03:04', null, null],
      ['1003', '2026-11-30 08:04:05', 0, 1],
      ['1005', '2026-11-30 08:07:08', 0, 1],
    ]);
    expect(r.store.keptUploads().map((k) => [k.table, k.lines, k.body])).toEqual([
      ['ATTLOG', 2, '1004    2026-11-30 08:05\nAna Lima    2026-11-30 08:06:07    0    1'],
    ]);
  });

  // No published capture or firmware shows a single space between fields (searched: push servers'
  // parsers, pyzk and ADMS issues); `punchgate import` refuses it too. Kept raw, counted, with the
  // line and the reason the alert shows, never dropped (reparse reads it once punchgate does). A
  // date written 2026/11/30 and fractional seconds have one reading each: read (push-date-forms.test.ts).
  it('keeps raw, with the reason, single-spaced lines; reads slashed dates and fractional seconds', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    const body = [
      '1001 2026-11-30 08:01:02 0 1',
      '1002\t2026/11/30 08:02:03\t0\t1',
      '1003\t2026-11-30 08:03:04.250\t0\t1',
    ];
    const res = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`,
      Buffer.from(body.join('\n')),
    );
    expect(res).toEqual({ status: 200, body: 'OK:2' });
    expect(r.journal.queries.list().map((p) => [p.biometricCode, p.logTime])).toEqual([
      ['1002', '2026-11-30 08:02:03'],
      ['1003', '2026-11-30 08:03:04'],
    ]);
    const kept = r.store.keptUploads();
    expect(kept.map((k) => [k.table, k.lines, k.body])).toEqual([['ATTLOG', 1, body[0]]]);
    expect(kept[0]!.reason).toMatch(/line 1: no tab between the fields/);
  });
});
