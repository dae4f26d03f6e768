import { afterEach, describe, expect, it } from 'vitest';
import { PushStore } from '../../src/journal/push-store.js';
import { reparseKept } from '../../src/sources/adms/reparse.js';
import { packedTime } from '../../src/sources/adms/server-time.js';
import { unpackTime } from '../../src/sources/adms/transaction.js';
import { http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CRJP230860129';

/** `transaction` rows as the access-control SDK names the fields (the wall clock packed, as it stores it). */
const packed = (wall: string) => packedTime(Date.parse(wall.replace(' ', 'T') + 'Z'));
const row = (f: Record<string, string | number>) =>
  'transaction ' +
  Object.entries(f)
    .map(([k, v]) => `${k}=${v}`)
    .join('\t');
const FACE = row({
  cardno: 0,
  pin: 2,
  verified: 15,
  doorid: 1,
  eventtype: 0,
  inoutstate: 0,
  time_second: packed('2026-11-30 08:01:02'),
});
const FINGER_OUT = row({
  cardno: 0,
  pin: 7,
  verified: 1,
  doorid: 1,
  eventtype: 3,
  inoutstate: 1,
  time: '2026-11-30 17:30:00',
});
const UNREGISTERED = row({
  cardno: 4521234,
  pin: 0,
  verified: 4,
  doorid: 1,
  eventtype: 27,
  inoutstate: 0,
  time_second: packed('2026-11-30 08:05:00'),
});
const DENIED = row({
  cardno: 0,
  pin: 9,
  verified: 15,
  doorid: 1,
  eventtype: 22,
  inoutstate: 0,
  time_second: packed('2026-11-30 08:06:00'),
});
const NEW_CODE = row({
  cardno: 0,
  pin: 11,
  verified: 15,
  doorid: 1,
  eventtype: 4102,
  inoutstate: 0,
  time: '2026-11-30 08:07:00',
});
const NO_TIME = row({ cardno: 0, pin: 12, verified: 15, doorid: 1, eventtype: 0, inoutstate: 0, time_second: 'x9' });

describe('Security PUSH transaction table (stored access events)', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('unpacks the time as ZKTeco packs it, and refuses what is no time', () => {
    expect(unpackTime(String(packed('2026-11-30 08:01:02')))).toBe('2026-11-30 08:01:02');
    expect(unpackTime('x9')).toBeUndefined();
    // 31 February exists only in the packed arithmetic.
    expect(unpackTime(String(26 * 372 * 86_400 + (31 + 30) * 86_400))).toBeUndefined();
  });

  it('journals passes of tabledata&tablename=transaction as rtlog passes, answered transaction=<rows> after the disk has them', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    // CRLF, no final LF: as firmware sends it.
    const body = [FACE, FINGER_OUT, UNREGISTERED, DENIED, NEW_CODE, NO_TIME].join('\r\n');
    const a = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=tabledata&tablename=transaction&count=6`, body);
    expect(a).toEqual({ status: 200, body: 'transaction=6' });
    expect(r.journal.queries.list().map((p) => [p.biometricCode, p.logTime, p.verifyType, p.punchState])).toEqual([
      ['2', '2026-11-30 08:01:02', 15, 0],
      ['7', '2026-11-30 17:30:00', 1, 1],
    ]);
    expect(r.store.pushEvents().map((e) => [e.table, e.code, e.count])).toEqual(
      expect.arrayContaining([
        ['tabledata:transaction', '27', 1],
        ['tabledata:transaction', '22', 1],
      ]),
    );
    // An unknown event of a person, and a row without a readable time: kept raw, as for rtlog.
    expect(r.store.keptUploads('gate').map((k) => [k.table, k.body])).toEqual(
      expect.arrayContaining([
        ['tabledata:transaction', NO_TIME],
        ['tabledata:transaction', NEW_CODE],
      ]),
    );
    // Once the site says 4102 is a pass, reparse reads the kept row (the row without a time stays kept).
    const store = new PushStore(r.journal.db, r.journal, { now: () => Date.now() });
    expect(reparseKept(store, terminal('gate', SN, { punchEvents: [0, 3, 4102] }))).toMatchObject({
      added: 1,
      stillKept: 1,
      unread: 0,
    });
    // The same rows again on table=transaction (answered OK): each punch once.
    const b = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=transaction`, [FACE, FINGER_OUT].join('\n'));
    expect(b).toEqual({ status: 200, body: 'OK' });
    expect(r.journal.queries.list()).toHaveLength(3);
  });

  it('reads a querydata answer of the transaction table (history asked with DATA QUERY)', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    const a = await http(
      r.url,
      'POST',
      `/iclock/querydata?SN=${SN}&type=tabledata&tablename=transaction&count=1&packcnt=1&packidx=1`,
      FACE + '\n',
    );
    expect(a).toEqual({ status: 200, body: 'transaction=1' });
    expect(r.journal.queries.list().map((p) => p.biometricCode)).toEqual(['2']);
  });
});
