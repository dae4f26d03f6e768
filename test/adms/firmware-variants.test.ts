import { afterEach, describe, expect, it } from 'vitest';
import { reparseKept } from '../../src/sources/adms/reparse.js';
import { keptBody } from '../../src/sources/adms/kept.js';
import { attlog, http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160007';

const punches = (r: Receiver) => r.journal.queries.list().map((p) => [p.biometricCode, p.logTime, p.punchState]);

describe('ADMS receiver: push firmware variants', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  /**
   * ATTLOG times in ISO 8601's `T` form and without seconds, named by this round's acceptance
   * brief as forms real push firmware sends. Published: a public Node iclock parser
   * written for SenseFace 3A terminals ("ATTLOG formats vary by firmware") matches times with
   * `^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}$`; for the form without seconds no public capture was
   * found (rebuilt here, not copied). Both were quarantined as "bad date": no punch reached the HRMS.
   */
  it('reads ATTLOG times written YYYY-MM-DDTHH:MM:SS or without seconds; a zoned time stays unread', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const zoned = '1004\t2024-05-06T08:04:00+08:00\t0\t1';
    const up = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`,
      attlog([
        '1001\t2024-05-06T08:01:02\t0\t1\t0\t\t\t0\t0\t',
        '1002\t2024-05-06 08:02\t1\t1',
        '1003\t2024-05-06T08:03\t0\t15',
        zoned,
      ]),
    );
    expect(up).toEqual({ status: 200, body: 'OK:3' });
    expect(punches(r)).toEqual([
      ['1001', '2024-05-06 08:01:02', 0],
      ['1002', '2024-05-06 08:02:00', 1],
      ['1003', '2024-05-06 08:03:00', 0],
    ]);
    // The zoned line is no wall clock: kept raw and said, never counted in OK:<n>.
    expect(r.store.keptUploads('lobby').map((k) => k.body)).toEqual([zoned]);
  });

  /**
   * A serial number with blanks around it (`SN=CQZ7232160007%20`, `SN=+CQZ...`) and in another
   * case (`sn=cqz...`): the public push servers written against deployed terminals read the
   * serial as `request.GET.get('SN', '').strip()` (several Django ADMS views) and compare it
   * without regard to case, so such firmware works there. It was answered 400 here, and its
   * punches waited on the terminal for ever.
   */
  it('reads a serial number with blanks around it or in another case as the terminal it names', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const forms = [`SN=${SN}%20`, `SN=+${SN}`, `sn=${SN.toLowerCase()}`, `SN=${SN}%09`, `SN=%20${SN}%0D%0A`];
    for (const [i, form] of forms.entries()) {
      const up = await http(
        r.url,
        'POST',
        `/iclock/cdata?${form}&table=ATTLOG&Stamp=${100 + i}`,
        attlog([`${2000 + i}\t2024-05-06 09:00:0${i}\t0\t1`]),
      );
      expect([form, up]).toEqual([form, { status: 200, body: 'OK:1' }]);
    }
    expect(r.journal.queries.list().map((p) => [p.terminal, p.device])).toEqual(forms.map(() => ['lobby', SN]));
    const hs = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}%20&options=all&pushver=2.4.1`);
    expect(hs.body).toContain(`GET OPTION FROM: ${SN}\n`);
    // Blanks inside the serial are no serial number: refused, as before.
    const inside = await http(r.url, 'GET', `/iclock/getrequest?SN=CQZ%20723`);
    expect(inside.status).toBe(400);
  });

  /**
   * Punches as table rows: `table=tabledata&tablename=ATTLOG` (newer push firmware uploading its
   * attendance table the way it uploads its users), the answer to `DATA QUERY tablename=ATTLOG`
   * on /iclock/querydata (public push servers queue `DATA QUERY tablename=ATTLOG,fielddesc=*,filter=*`
   * to recover a terminal's history), and `tablename=rtlog` on access panels. Vendor servers answer
   * each `<tablename>=<rows received>` in the device's own spelling (ZKTeco's Java and C# push
   * demos: `table + "=" + count`). These were kept raw as "a table punchgate does not read": the
   * terminal was told they were stored, and no punch reached the HRMS.
   */
  it('journals punches of tabledata ATTLOG and rtlog uploads and of an ATTLOG query answer, answered <tablename>=<rows>', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const bad = 'ATTLOG\t1104\t2024-05-06 25:00:00\t0\t1';
    const rows = [
      'ATTLOG\t1101\t2024-05-06 08:01:02\t0\t1\t0',
      'attlog pin=1102\ttime=2024-05-06 08:02:03\tstatus=1\tverify=15\tworkcode=0',
      '1103\t2024-05-06T08:03:04\t0\t1',
      bad,
    ];
    const up = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=tabledata&tablename=ATTLOG&count=4`,
      rows.join('\r\n'),
    );
    expect(up).toEqual({ status: 200, body: 'ATTLOG=4' });
    expect(punches(r)).toEqual([
      ['1101', '2024-05-06 08:01:02', 0],
      ['1102', '2024-05-06 08:02:03', 1],
      ['1103', '2024-05-06 08:03:04', 0],
    ]);
    // The unreadable row is kept raw and said, never dropped.
    expect(r.store.keptUploads('lobby').map((k) => [k.table, k.body])).toEqual([['tabledata:attlog', bad]]);

    const q = await http(
      r.url,
      'POST',
      `/iclock/querydata?SN=${SN}&type=tabledata&cmdid=7&tablename=ATTLOG&count=2&packcnt=1&packidx=1`,
      [rows[0], '1105\t2024-05-06 08:05:06\t1\t1'].join('\n') + '\n',
    );
    expect(q).toEqual({ status: 200, body: 'ATTLOG=2' });
    // Each punch once: the one sent again is not a second punch.
    expect(punches(r).map((p) => p[0])).toEqual(['1101', '1102', '1103', '1105']);

    const rt = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=tabledata&tablename=rtlog&count=2`,
      [
        'rtlog time=2024-05-06 08:06:07\tpin=1106\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=1\tverifytype=15',
        'rtlog time=2024-05-06 08:07:08\tpin=0\tcardno=4521234\teventaddr=1\tevent=27\tinoutstatus=0\tverifytype=4',
      ].join('\n'),
    );
    expect(rt).toEqual({ status: 200, body: 'rtlog=2' });
    expect(punches(r).find((p) => p[0] === '1106')).toEqual(['1106', '2024-05-06 08:06:07', 1]);
    expect(r.journal.queries.list()).toHaveLength(5);
  });

  it('a tabledata upload headed by its table name alone (ATTLOG, user, rtlog) answers the rows only, the header is no row', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const up = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=tabledata&tablename=ATTLOG&count=2`,
      ['ATTLOG', 'ATTLOG\t1301\t2024-05-06 08:01:02\t0\t1', '1302\t2024-05-06 08:02:03\t1\t1', ''].join('\r\n'),
    );
    expect(up).toEqual({ status: 200, body: 'ATTLOG=2' });
    expect(punches(r)).toEqual([
      ['1301', '2024-05-06 08:01:02', 0],
      ['1302', '2024-05-06 08:02:03', 1],
    ]);
    // The users table alike: the header is neither counted nor kept raw as an unreadable row.
    const users = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=tabledata&tablename=user&count=1`,
      ['user', 'user uid=1\tcardno=\tpin=1301\tpassword=\tgroup=1\tname=Ana\tprivilege=0'].join('\n'),
    );
    expect(users).toEqual({ status: 200, body: 'user=1' });
    // And rtlog: its header is no unreadable event.
    const rt = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=tabledata&tablename=rtlog&count=1`,
      [
        'rtlog',
        'rtlog time=2024-05-06 08:06:07\tpin=1303\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=1\tverifytype=15',
      ].join('\n'),
    );
    expect(rt).toEqual({ status: 200, body: 'rtlog=1' });
    expect(punches(r).map((p) => p[0])).toEqual(['1301', '1302', '1303']);
    expect(r.store.keptUploads('lobby')).toEqual([]);
  });

  it('reparse turns tabledata ATTLOG and rtlog uploads an earlier punchgate kept raw into punches', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    // As the earlier receiver kept them: the whole body, "a table punchgate does not read".
    const old = [
      keptBody('tabledata:ATTLOG', 'a table punchgate does not read', 'ATTLOG\t1201\t2024-05-06 08:01:02\t0\t1\n'),
      keptBody(
        'tabledata:rtlog',
        'a table punchgate does not read',
        'rtlog time=2024-05-06 08:02:03\tpin=1202\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=0\tverifytype=15',
      ),
      keptBody('ATTLOG', 'line 1: bad date', '1203\t2024-05-06T08:03:04\t1\t1'),
    ];
    for (const kept of old)
      r.store.commitRecords(
        { terminal: 'lobby', serial: SN, table: kept.table, stamp: null, at: Date.now() },
        { kept: [kept], keptBounds: { maxBytes: 1_000_000, maxAgeMs: 86_400_000 } },
      );
    expect(reparseKept(r.store, terminal('lobby', SN))).toMatchObject({
      uploads: 3,
      added: 3,
      stillKept: 0,
      unread: 0,
    });
    expect(punches(r)).toEqual([
      ['1201', '2024-05-06 08:01:02', 0],
      ['1202', '2024-05-06 08:02:03', 0],
      ['1203', '2024-05-06 08:03:04', 1],
    ]);
  });
});
