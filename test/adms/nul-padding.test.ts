import { afterEach, describe, expect, it } from 'vitest';
import { keptBody } from '../../src/sources/adms/kept.js';
import { reparseKept } from '../../src/sources/adms/reparse.js';
import { http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const ACC = 'ACC7232160041';
const ATT = 'CQZ7232160042';
const NULS = '\u0000\u0000\u0000\u0000';

/**
 * NUL padding after a line or at the end of the body, as some eSSL and clone firmware writes its
 * uploads (a C buffer sent whole). ATTLOG read it as padding; every other table did not: a padded
 * rtlog row was kept raw as "no event= code" (its pass never sent to the HRMS, an alert raised), a
 * body padded after its last row had a "line" of NULs kept raw and alerted, and a padded user row
 * kept its NULs in the terminal's user list.
 */
describe('NUL padding in every table of a push upload', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('reads padded rtlog, transaction, rtstate, user and OPERLOG rows as their rows; nothing is kept raw', async () => {
    r = await startReceiver({ terminals: [terminal('door', ACC), terminal('lobby', ATT)] });
    const pass = (pin: number, s: number) =>
      `time=2024-05-06 09:00:0${s}\tpin=${pin}\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=0\tverifytype=15\tindex=${s}`;
    const rt = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${ACC}&table=rtlog`,
      `${pass(2001, 1)}${NULS}\r\n${pass(2002, 2)}${NULS}\n${NULS}`,
    );
    expect(rt).toEqual({ status: 200, body: 'OK' });
    const tx = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${ACC}&table=tabledata&tablename=transaction&count=1`,
      `transaction cardno=0\tpin=2003\tverified=15\tdoorid=1\teventtype=0\tinoutstate=0\ttime=2024-05-06 09:00:03${NULS}\n${NULS}`,
    );
    expect(tx).toEqual({ status: 200, body: 'transaction=1' });
    const state = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${ACC}&table=rtstate`,
      `time=2024-05-06 09:00:04\tsensor=00\trelay=00\talarm=0000000000000000\tdoor=00${NULS}\n${NULS}`,
    );
    expect(state).toEqual({ status: 200, body: 'OK' });
    const users = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${ACC}&table=tabledata&tablename=user&count=1`,
      `user uid=1\tcardno=\tpin=2001\tpassword=\tgroup=0\tstarttime=0\tendtime=0\tname=Ana\tprivilege=0${NULS}\n${NULS}`,
    );
    expect(users).toEqual({ status: 200, body: 'user=1' });
    const operlog = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${ATT}&table=OPERLOG&Stamp=1`,
      `USER PIN=1001\tName=Bo\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000000000000\tVerify=0${NULS}\n${NULS}`,
    );
    expect(operlog).toEqual({ status: 200, body: 'OK:1' });
    expect(
      r.journal.queries
        .list()
        .map((p) => [p.biometricCode, p.logTime, p.state])
        .sort(),
    ).toEqual([
      ['2001', '2024-05-06 09:00:01', 'pending'],
      ['2002', '2024-05-06 09:00:02', 'pending'],
      ['2003', '2024-05-06 09:00:03', 'pending'],
    ]);
    expect(r.store.users('door', ACC).map((u) => [u.pin, u.name, u.privilege])).toEqual([['2001', 'Ana', 0]]);
    expect(r.store.users('lobby', ATT).map((u) => [u.pin, u.name])).toEqual([['1001', 'Bo']]);
    expect([...r.store.keptUploads('door'), ...r.store.keptUploads('lobby')]).toEqual([]);
  });

  it('reparse reads a padded rtlog row an earlier punchgate kept raw', async () => {
    r = await startReceiver({ terminals: [terminal('door', ACC)] });
    const kept = keptBody(
      'rtlog',
      'line 1: no event= code',
      `time=2024-05-06 09:00:05\tpin=2005\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=0\tverifytype=15${NULS}`,
    );
    r.store.commitRecords(
      { terminal: 'door', serial: ACC, table: 'rtlog', stamp: null, at: Date.now() },
      { kept: [kept], keptBounds: { maxBytes: 1_000_000, maxAgeMs: 86_400_000 } },
    );
    expect(reparseKept(r.store, terminal('door', ACC))).toMatchObject({ added: 1, stillKept: 0 });
    expect(r.journal.queries.list().map((p) => [p.biometricCode, p.logTime])).toEqual([
      ['2005', '2024-05-06 09:00:05'],
    ]);
  });
});
