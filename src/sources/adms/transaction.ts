import { formatLogTime, isLogTime } from '../../punch.js';
import { uploadLine } from './upload-line.js';
import { printable } from '../../util/terminal-text.js';
import { malformedLine } from './malformed.js';
import { accessRow, int, type ParsedRtlog, type RtlogRow } from './rtlog.js';
import { parseTableRows } from './tabledata.js';

/**
 * The Security PUSH `transaction` table: the terminal's stored access events, uploaded as
 * `POST /iclock/cdata?table=tabledata&tablename=transaction` (or `table=transaction`), and the
 * answer to `DATA QUERY tablename=transaction` on `/iclock/querydata`. One row per line,
 * `transaction cardno=0\tpin=2\tverified=15\tdoorid=1\teventtype=0\tinoutstate=0\ttime_second=...`:
 * the same event as an rtlog row under the access-control SDK's field names (`eventtype` for
 * `event`, `verified` for `verifytype`, `inoutstate` for `inoutstatus`, `doorid` for `eventaddr`).
 * The time is `time=YYYY-MM-DD HH:MM:SS`, or `time_second=` in ZKTeco's packed form (every month
 * 31 days from 2000-01-01) of the terminal's wall clock, as that SDK stores it. Read into rtlog
 * rows, so that which are punches is decided as for rtlog (rtlog-events.ts).
 */

/** Packed times from 2000 to 2099 only: anything larger is not a time this SDK writes. */
const MAX_PACKED = 100 * 372 * 86_400;

/** ZKTeco's packed time as the wall clock it encodes, or undefined when it is not one. */
export function unpackTime(text: string): string | undefined {
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const t = Number(text);
  if (t >= MAX_PACKED) return undefined;
  const sec = t % 86_400;
  const days = Math.floor(t / 86_400);
  const wall = formatLogTime(
    2000 + Math.floor(days / 372),
    Math.floor((days % 372) / 31) + 1,
    (days % 31) + 1,
    Math.floor(sec / 3600),
    Math.floor(sec / 60) % 60,
    sec % 60,
  );
  // 31 days in every month: a 31 February is no date (the row is then an unreadable one).
  return isLogTime(wall) ? wall : undefined;
}

export function parseTransactions(body: string): ParsedRtlog {
  const table = parseTableRows(body, 'transaction');
  const rows: RtlogRow[] = [];
  const malformed = [...table.malformed];
  const lines = body.split('\n');
  for (const { line, fields } of table.rows) {
    const bad = (reason: string) => malformed.push(malformedLine(line, reason, uploadLine(lines[line - 1]!)));
    const packed = fields.get('time_second');
    const time = fields.get('time') ?? (packed === undefined ? undefined : unpackTime(packed));
    const row = accessRow(
      line,
      {
        time,
        pin: fields.get('pin') ?? '',
        event: int(fields.get('eventtype') ?? fields.get('event')),
        verify: int(fields.get('verified') ?? fields.get('verifytype')),
        inout: int(fields.get('inoutstate') ?? fields.get('inoutstatus')),
      },
      {
        time: packed === undefined ? 'no time= or time_second= field' : `bad time_second "${printable(packed, 20)}"`,
        event: 'no eventtype= code',
      },
    );
    if (typeof row === 'string') bad(row);
    else rows.push(row);
  }
  malformed.sort((a, b) => a.line - b.line);
  return { rows, malformed };
}
