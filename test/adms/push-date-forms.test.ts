import { afterEach, describe, expect, it } from 'vitest';
import { keptBody } from '../../src/sources/adms/kept.js';
import { reparseKept } from '../../src/sources/adms/reparse.js';
import { http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160031';
const ACC = 'ACC7232160032';
const punches = (r: Receiver) =>
  r.journal.queries
    .list()
    .map((p) => [p.biometricCode, p.logTime, p.state])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

/**
 * Push times written in the other forms a year-first date and a wall clock take: the date with
 * slashes or dots (`2024/05/06`, as the terminal's date display and the USB export of some firmware
 * write it), month, day or hour with one digit, a fraction of a second. Each has one reading. Before,
 * an ATTLOG line so written was kept raw (no punch reached the HRMS until a reparse by a newer
 * punchgate), a last line so written without its line end had the whole upload refused as cut short
 * (the terminal sent it again for ever), and an rtlog row so written was journalled with the time as
 * written and quarantined as a time that does not exist.
 */
describe('push times in other date forms', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('reads ATTLOG times written 2024/05/06, 2024.05.06, 2024-5-6 8:01, 08:01:02.250 or with two spaces as the same wall clock', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const yearLast = '1009\t06/05/2024 08:09:00\t0\t1';
    const body = [
      '1001\t2024/05/06 08:01:02\t0\t1\t0\t0',
      '1002\t2024.05.06 08:02:03\t1\t15',
      '1003\t2024-5-6 8:03:04\t0\t1',
      '1004\t2024-05-06 08:04:05.250\t0\t1',
      '1005\t2024/05/06T08:05\t0\t1',
      '1006    2024/05/06 08:06:07    0    1',
      // Two spaces between the date and the time, as ZKTeco's GLG export writes it.
      '1008\t2024/05/06  08:08:09\t0\t1',
      '1010    2024/05/06  08:10:11    1    1',
      yearLast,
      // The last line without its line end: a whole slashed time is no cut.
      '1007\t2024/05/06 08:07:08\t0\t1',
    ].join('\r\n');
    const up = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`, body);
    expect(up).toEqual({ status: 200, body: 'OK:9' });
    expect(punches(r)).toEqual([
      ['1001', '2024-05-06 08:01:02', 'pending'],
      ['1002', '2024-05-06 08:02:03', 'pending'],
      ['1003', '2024-05-06 08:03:04', 'pending'],
      ['1004', '2024-05-06 08:04:05', 'pending'],
      ['1005', '2024-05-06 08:05:00', 'pending'],
      ['1006', '2024-05-06 08:06:07', 'pending'],
      ['1007', '2024-05-06 08:07:08', 'pending'],
      ['1008', '2024-05-06 08:08:09', 'pending'],
      ['1010', '2024-05-06 08:10:11', 'pending'],
    ]);
    // Year last is month first in one country and day first in another: kept raw, said, not guessed.
    const kept = r.store.keptUploads('lobby');
    expect(kept.map((k) => k.body)).toEqual([yearLast]);
    expect(kept[0]!.reason).toContain('bad date "06/05/2024 08:09:00"');
    // The same punches in the canonical form are the same punches: nothing twice.
    const again = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`,
      '1001\t2024-05-06 08:01:02\t0\t1\n1003\t2024-05-06 08:03:04\t0\t1\n',
    );
    expect(again).toEqual({ status: 200, body: 'OK:2' });
    expect(r.journal.queries.list()).toHaveLength(9);
  });

  it('an upload of one slashed line without its line end is whole; one cut short is still refused as cut', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const whole = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`,
      '1000\t2024/05/06 08:00:01\t0\t1',
    );
    expect(whole).toEqual({ status: 200, body: 'OK:1' });
    const up = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`,
      '1001\t2024/05/06 08:01:02\t0\t1\n1002\t2024/05/06 08:02',
    );
    expect(up.status).toBe(400);
    expect(r.journal.queries.list()).toHaveLength(1);
  });

  it('reads rtlog and transaction times written with slashes as punches, not quarantined', async () => {
    r = await startReceiver({ terminals: [terminal('door', ACC)] });
    const rt = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${ACC}&table=rtlog`,
      'time=2024/05/06 09:00:01\tpin=2001\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=0\tverifytype=15\tindex=1\n' +
        'time=2024/5/6 9:00:02\tpin=2002\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=0\tverifytype=15\tindex=2',
    );
    expect(rt).toEqual({ status: 200, body: 'OK' });
    const tx = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${ACC}&table=tabledata&tablename=transaction&count=1`,
      'transaction cardno=0\tpin=2003\tverified=15\tdoorid=1\teventtype=0\tinoutstate=0\ttime=2024/05/06 09:00:03\n',
    );
    expect(tx).toEqual({ status: 200, body: 'transaction=1' });
    expect(punches(r)).toEqual([
      ['2001', '2024-05-06 09:00:01', 'pending'],
      ['2002', '2024-05-06 09:00:02', 'pending'],
      ['2003', '2024-05-06 09:00:03', 'pending'],
    ]);
  });

  it('reparse turns slashed ATTLOG lines an earlier punchgate kept raw into punches', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const kept = keptBody(
      'ATTLOG',
      'line 1: bad date',
      '1101\t2024/05/06 08:01:02\t0\t1\n1102\t2024/05/06 08:02:03\t1\t1',
    );
    r.store.commitRecords(
      { terminal: 'lobby', serial: SN, table: 'ATTLOG', stamp: null, at: Date.now() },
      { kept: [kept], keptBounds: { maxBytes: 1_000_000, maxAgeMs: 86_400_000 } },
    );
    expect(reparseKept(r.store, terminal('lobby', SN))).toMatchObject({ added: 2, stillKept: 0 });
    expect(punches(r).map((p) => p.slice(0, 2))).toEqual([
      ['1101', '2024-05-06 08:01:02'],
      ['1102', '2024-05-06 08:02:03'],
    ]);
  });
});
