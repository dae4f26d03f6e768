import { afterEach, describe, expect, it } from 'vitest';
import { parseAttlog } from '../../src/sources/adms/attlog.js';
import { http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7233461468';

/**
 * ATTLOG lines that name their table, and lines of `key=value` fields, as other projects' push
 * servers were written to read them (rebuilt here, not copied):
 * - `ATTLOG<TAB>PIN<TAB>time...`, the "tagged format" beside the plain one in the ADMS parsers of
 *   several public Node push servers (their parseATTLOG: `Tagged format: "ATTLOG PIN TIMESTAMP
 *   STATUS VERIFY WORKCODE ..."`, found by `find_string` over public GitHub code);
 * - `ATTLOG<TAB>PIN=101<TAB>DateTime=...`, listed as one of the "common ADMS forms" in another
 *   public push server's parseAttlogLines;
 * - `PIN=99<TAB>Time=...<TAB>Status=0<TAB>VerifyMode=2` under `table=ATTLOG`, the upload of a
 *   public push server's own acceptance test (the fields USERINFO and tabledata rows use too);
 * - a bare `ATTLOG` line before the punches (the same parsers skip it as the table's header).
 * Each was kept raw as a malformed line, warned about on every upload, its punch never delivered.
 */
describe('ATTLOG lines that name their table, or carry key=value fields', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('parses the tagged and key=value forms as punches; what is not a punch is still kept raw', () => {
    const body = [
      'ATTLOG',
      'ATTLOG\t2001\t2026-11-30 08:01:02\t0\t1\t0',
      'ATTLOG 2002\t2026-11-30 08:02:03\t1\t15',
      'attlog\tPIN=2003\tDateTime=2026-11-30 08:03:04\tStatus=0\tVerify=4',
      'PIN=2004\tTime=2026-11-30 08:04:05\tStatus=1\tVerifyMode=2',
      'pin=2005 time=2026-11-30 08:05:06 status=4 verifytype=15',
      // Still not punches: a key=value line without a PIN, a tagged line with a bad date.
      'Time=2026-11-30 08:06:07\tStatus=0',
      'ATTLOG\t2006\t2026-13-30 08:07:08',
      '2007\t2026-11-30 08:08:09\t0\t1',
      // A PIN that holds "=" on a positional line is still read by position.
      'A=1\t2026-11-30 08:09:10\t0\t1',
    ].join('\r\n');
    const { records, malformed } = parseAttlog(body);
    expect(records.map((x) => [x.line, x.pin, x.logTime, x.status, x.verify])).toEqual([
      [2, '2001', '2026-11-30 08:01:02', 0, 1],
      [3, '2002', '2026-11-30 08:02:03', 1, 15],
      [4, '2003', '2026-11-30 08:03:04', 0, 4],
      [5, '2004', '2026-11-30 08:04:05', 1, 2],
      [6, '2005', '2026-11-30 08:05:06', 4, 15],
      [9, '2007', '2026-11-30 08:08:09', 0, 1],
      [10, 'A=1', '2026-11-30 08:09:10', 0, 1],
    ]);
    expect(malformed.map((m) => [m.line, m.reason])).toEqual([
      [7, 'no PIN= field'],
      [8, 'bad date "2026-13-30 08:07:08" (expected YYYY-MM-DD HH:MM:SS)'],
    ]);
  });

  it('a terminal that tags its lines: journalled once, answered OK:n, no warning, the same again is no new punch', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    const body =
      'ATTLOG\nATTLOG\t3001\t2026-11-30 09:00:00\t0\t1\nPIN=3002\tTime=2026-11-30 09:01:00\tStatus=1\tVerifyMode=15\n';
    const path = `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`;
    expect(await http(r.url, 'POST', path, body)).toEqual({ status: 200, body: 'OK:2' });
    expect(await http(r.url, 'POST', path, body)).toEqual({ status: 200, body: 'OK:2' });
    const got = r.journal.queries.list().map((p) => [p.biometricCode, p.logTime, p.punchState, p.verifyType]);
    expect(got.sort()).toEqual([
      ['3001', '2026-11-30 09:00:00', 0, 1],
      ['3002', '2026-11-30 09:01:00', 1, 15],
    ]);
    expect(r.log.lines().filter((l) => (l.level as number) >= 40)).toEqual([]);
  });
});
