import { describe, expect, it } from 'vitest';
import { errorText, parseLines, parseRecordAnswer } from '../../src/sources/dahua/kv.js';
import { classify, fromFields, punchStateOf } from '../../src/sources/dahua/records.js';

const ctx = { terminal: 'front-door', device: 'SN1', recordClock: 'local' as const };

describe('Dahua answers and records', () => {
  it('reads key=value lines (CRLF or LF, a value holding "="), and the error text', () => {
    expect([...parseLines('sn=AB12\r\ntype=ASI7213X\nnote=a=b\r\n')]).toEqual([
      ['sn', 'AB12'],
      ['type', 'ASI7213X'],
      ['note', 'a=b'],
    ]);
    expect(errorText('Error\r\nBad Request!\r\n')).toBe('Bad Request!');
    expect(errorText('found=0\r\n')).toBeUndefined();
  });

  it('groups records by their index in order, and leaves out indexes beyond the bound', () => {
    const text = [
      'found=3',
      'records[1].RecNo=13',
      'records[0].RecNo=12',
      'records[0].CardName=A=B',
      'records[2].RecNo=14',
      'records[999999999].RecNo=1',
      'records[x].RecNo=2',
    ].join('\n');
    const a = parseRecordAnswer(text, 10);
    expect(a.found).toBe('3');
    expect(a.records.map((r) => r.get('RecNo'))).toEqual(['12', '13', '14']);
    expect(a.records[0]!.get('CardName')).toBe('A=B');
  });

  it('an answer cut short (fewer records than found= says) leaves out its last record where it shows the cut', () => {
    const rec = (i: number, user: string) => [`records[${i}].RecNo=${i + 1}`, `records[${i}].UserID=${user}`];
    const whole = ['found=2', ...rec(0, '1000120'), ...rec(1, '1000121')];
    // A whole answer without its last line end: read as it is.
    expect(parseRecordAnswer(whole.join('\r\n'), 10)).toMatchObject({ records: [{}, {}] });
    expect(parseRecordAnswer(whole.join('\r\n'), 10).cut).toBeUndefined();
    // Cut inside a value (found=4, the third record's id half sent): never read as user 1000.
    const mid = parseRecordAnswer(
      ['found=4', ...rec(0, '1000120'), ...rec(1, '1000121'), 'records[2].RecNo=3', 'records[2].UserID=1000'].join(
        '\r\n',
      ),
      10,
    );
    expect(mid.records.map((r) => r.get('UserID'))).toEqual(['1000120', '1000121']);
    expect(mid.cut).toBe(true);
    // Cut at a line end (found=4): the last record lacks fields the first has.
    const atEnd = parseRecordAnswer(
      ['found=4', ...rec(0, '1000120'), ...rec(1, '1000121'), 'records[2].RecNo=3', ''].join('\r\n'),
      10,
    );
    expect(atEnd.records.map((r) => r.get('UserID'))).toEqual(['1000120', '1000121']);
  });

  it('a record the door accepted is a punch at the wall clock; a refused try is none; direction from the state or entry/exit', () => {
    const rec = (f: Record<string, string>) => fromFields(new Map(Object.entries(f)));
    // 2026-11-02 07:58:01 written as seconds read as UTC (the ASI firmware's CreateTime).
    const t = String(Date.UTC(2026, 10, 2, 7, 58, 1) / 1000);
    expect(
      classify(
        rec({ RecNo: '5', CreateTime: t, UserID: '1042', Status: '1', Method: '15', AttendanceState: '4' }),
        ctx,
      ),
    ).toEqual({
      kind: 'punch',
      punch: {
        terminal: 'front-door',
        device: 'SN1',
        biometricCode: '1042',
        logTime: '2026-11-02 07:58:01',
        verifyType: 15,
        punchState: 1,
      },
    });
    expect(classify(rec({ CreateTime: t, UserID: '1042', Status: '0' }), ctx)).toEqual({ kind: 'other' });
    // No Status field, as in the example of Dahua's API document (found by a trial replaying it):
    // a punch, unless an ErrorCode says the door refused.
    expect(
      classify(
        rec({ RecNo: '12345', CreateTime: t, CardNo: '12001', UserID: 'ZhangSan', Type: 'Entry', Method: '1' }),
        ctx,
      ),
    ).toMatchObject({
      kind: 'punch',
      punch: { biometricCode: 'ZhangSan', logTime: '2026-11-02 07:58:01', punchState: 0 },
    });
    expect(classify(rec({ CreateTime: t, UserID: '1042', ErrorCode: '0' }), ctx).kind).toBe('punch');
    expect(classify(rec({ CreateTime: t, UserID: '1042', ErrorCode: '16' }), ctx)).toEqual({ kind: 'other' });
    expect(classify(rec({ CreateTime: t, CardNo: '4521236', Status: '1' }), ctx)).toMatchObject({
      punch: { biometricCode: 'card:4521236' },
    });
    expect(classify(rec({ CreateTime: t, Status: '1' }), ctx).kind).toBe('malformed');
    // recordClock utc: real UTC seconds shown in the terminal's zone.
    expect(
      classify(rec({ CreateTime: t, UserID: '1', Status: '1' }), {
        ...ctx,
        recordClock: 'utc',
        timezone: 'Asia/Kolkata',
      }),
    ).toMatchObject({ punch: { logTime: '2026-11-02 13:28:01' } });
    // recordClock utc, CreateTime as wall-clock text: the read position in real seconds of the
    // terminal's zone; the punch keeps the text, even where the zone skips it (clocks going forward).
    const utc = { ...ctx, recordClock: 'utc' as const, timezone: 'Europe/Berlin' };
    const text = (v: string) =>
      fromFields(
        new Map([
          ['CreateTime', v],
          ['UserID', '7'],
          ['Status', '1'],
        ]),
        'utc',
        'Europe/Berlin',
      );
    expect(text('2026-11-02 08:00:00').createTime).toBe(Date.UTC(2026, 10, 2, 7) / 1000);
    expect(classify(text('2026-11-02 08:00:00'), utc)).toMatchObject({ punch: { logTime: '2026-11-02 08:00:00' } });
    expect(classify(text('2026-03-29 02:30:00'), utc)).toMatchObject({ punch: { logTime: '2026-03-29 02:30:00' } });
    expect(punchStateOf({ attendanceState: 0, type: 'Exit' })).toBe(1);
    expect(punchStateOf({ attendanceState: null, type: 'Entry' })).toBe(0);
    expect(punchStateOf({ attendanceState: 5, type: 'Entry' })).toBe(4);
    expect(punchStateOf({ attendanceState: null, type: '' })).toBeNull();
  });
});
