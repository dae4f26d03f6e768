/**
 * The simulated device's access-record log (`AccessControlCardRec`), as recordFinder.cgi answers
 * it: key=value lines, oldest first, `found=` then `records[i].Field=value`. CreateTime is the
 * device's wall clock written as seconds read as UTC (ASI firmware), CreateTimeRealUTC the real
 * UTC seconds. Field names and values as Dahua's HTTP API and horilla's dahua.py key map list
 * them (RecNo, CreateTime, CreateTimeRealUTC, UserID, CardNo, CardName, Type, Method, Status,
 * ErrorCode, AttendanceState, Door, ReaderID).
 */
export interface SimRecord {
  RecNo: number;
  CreateTime: number | string;
  UserID: string;
  CardNo: string;
  CardName: string;
  Type: 'Entry' | 'Exit';
  /** 1 card, 15 face, 6 fingerprint... */
  Method: number;
  /** 1 opened, 0 refused. */
  Status: 0 | 1;
  ErrorCode: number;
  /** 0 none chosen; 1 sign in, 2 go out, 3 back, 4 sign out, 5 overtime in, 6 overtime out (NetSDK's order). */
  AttendanceState: number;
  Door: number;
}

export type NewRecord = Partial<Omit<SimRecord, 'RecNo'>>;

export function recordLines(rs: readonly SimRecord[], utcOffsetMinutes: number): string {
  const out: string[] = [`found=${rs.length}`];
  rs.forEach((r, i) => {
    const p = `records[${i}].`;
    out.push(
      `${p}AttendanceState=${r.AttendanceState}`,
      `${p}CardName=${r.CardName}`,
      `${p}CardNo=${r.CardNo}`,
      `${p}CardType=0`,
      `${p}CreateTime=${r.CreateTime}`,
      ...(typeof r.CreateTime === 'number' ? [`${p}CreateTimeRealUTC=${r.CreateTime - utcOffsetMinutes * 60}`] : []),
      `${p}Door=${r.Door}`,
      `${p}ErrorCode=${r.ErrorCode}`,
      `${p}Method=${r.Method}`,
      `${p}ReaderID=1`,
      `${p}RecNo=${r.RecNo}`,
      `${p}Status=${r.Status}`,
      `${p}Type=${r.Type}`,
      `${p}UserID=${r.UserID}`,
    );
  });
  return out.join('\r\n') + '\r\n';
}

/** Hostile texts a device may send: control characters, a very long id, markup, a time that is none. */
export const HOSTILE_RECORDS: NewRecord[] = [
  { UserID: 'A\u0007B\u001b[31m', CardName: '<script>alert(1)</script>' },
  { UserID: 'x'.repeat(5000), CardName: 'long' },
  { UserID: 'H-1', CardName: 'Ünïcødé ✓ 名前' },
  { UserID: 'H-2', CreateTime: 'yesterday' },
  { UserID: '', CardNo: '' },
  { UserID: 'H-3', CardName: 'bad date', CreateTime: 2145000000 },
];

/**
 * The answer cut halfway through the UserID of its middle record, as firmware whose answer buffer
 * is smaller than the page sends it: `found=` still counts the whole page, no line end after the cut.
 */
export function cutInMiddleUserId(text: string, records: number): string {
  const at = text.indexOf(`records[${Math.floor(records / 2)}].UserID=`);
  if (at < 0) return text;
  const from = text.indexOf('=', at) + 1;
  const end = text.indexOf('\r\n', from);
  const value = text.slice(from, end < 0 ? text.length : end);
  return text.slice(0, from + Math.ceil(value.length / 2));
}
