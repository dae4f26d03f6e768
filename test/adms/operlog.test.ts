import { describe, expect, it } from 'vitest';
import { parseOperlog } from '../../src/sources/adms/operlog.js';

/**
 * OPERLOG bodies as firmware writes them. ZKTeco's document separates the record type from its
 * fields by a space (`USER PIN=..`); eSSL K30 Pro units send a TAB there (`USER\tPIN=5\tName=..`,
 * as the code of a server deployed with them notes), and other published ADMS servers' fixtures
 * carry `OPLOG\t6\t1\t..`, `FP\tPIN=..` and `BIODATA\tPin=..` lines. Our own small bodies below.
 */
describe('parseOperlog', () => {
  it('reads records whose type is followed by a TAB as those followed by a space', () => {
    const body = [
      'USER\tPIN=21\tName=Kala S\tPri=0\tPasswd=9876\tCard=555\tGrp=1',
      'FP\tPIN=21\tFID=0\tSize=24\tValid=1\tTMP=TSNTUzIxAAAEUlYECAUHCc7Q',
      'BIODATA\tPin=21\tNo=1\tType=1\tTmp=QkJCQkJC',
      'OPLOG\t6\t1\t21\t2026-06-19 09:00:00\t0\t0',
      'USER PIN=22\tName=Ben\tPri=14',
    ].join('\r\n');
    const p = parseOperlog(body);
    expect(p.malformed).toEqual([]);
    expect(p.processed).toBe(5);
    expect(p.users).toEqual([
      { pin: '21', name: 'Kala S', card: '555', privilege: 0 },
      { pin: '22', name: 'Ben', card: '', privilege: 14 },
    ]);
    expect(Object.fromEntries(p.known)).toEqual({ FP: 1, BIODATA: 1, OPLOG: 1 });
  });

  it('still names an unknown record type, whichever separator follows it', () => {
    const p = parseOperlog('WIDGET\tA=1\nGADGET B=2\n');
    expect(p.malformed.map((m) => m.reason)).toEqual(['unknown record type "WIDGET"', 'unknown record type "GADGET"']);
  });
});
