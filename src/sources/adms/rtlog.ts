import { malformedLine } from './malformed.js';
import { codeProblem, isLogTime } from '../../punch.js';
import { printable } from '../../util/terminal-text.js';
import type { MalformedLine } from './attlog.js';
import { keyValueFields } from './key-values.js';
import { isTableHeader } from './tabledata.js';
import { wallTimeOf } from './wall-time.js';
import { uploadLine } from './upload-line.js';

/**
 * The body of `POST /iclock/cdata?table=rtlog` (ZKTeco Security PUSH: SpeedFace, SenseFace,
 * ProFace X with `DeviceType=acc`): one access event per line, TAB-separated `key=value`
 * fields, keys in lower case, the last line maybe without its LF:
 * `time=2026-09-15 15:32:41\tpin=2\tcardno=0\teventaddr=1\tevent=3\tinoutstatus=0\tverifytype=1\tindex=114\t...`.
 * Later firmware adds fields (maskflag, temperature...): unknown keys are ignored.
 */
export interface RtlogRow {
  /** 1-based line number in the body. */
  line: number;
  /** The terminal's wall clock as sent (not always a valid time: see `validTime`). */
  time: string;
  validTime: boolean;
  /** The user's id on the terminal; '' or '0' is nobody (a door event, an unregistered card). */
  pin: string;
  event: number;
  /** How they verified (1 fingerprint, 15 face, 4 card...), when given. */
  verify: number | null;
  /** 0 entry, 1 exit, 2 none, when given. */
  inout: number | null;
}

export interface ParsedRtlog {
  rows: RtlogRow[];
  malformed: MalformedLine[];
}

const SMALL_INT = /^-?\d{1,6}$/;
/** A small whole number of a field, or null when absent or not one. */
export const int = (s: string | undefined): number | null => (s !== undefined && SMALL_INT.test(s) ? Number(s) : null);
/** The longest time text journalled for a row whose time is not valid (quarantined, shown to the admin). */
const MAX_BAD_TIME = 32;

/** `rtlog ` before the fields: the row of a `tabledata&tablename=rtlog` upload. */
const RTLOG_TAG = /^rtlog[ \t]+/i;

/** Reads every line; a line that is not an event is reported with its number and never stops the others. Never throws. */
export function parseRtlog(body: string): ParsedRtlog {
  const rows: RtlogRow[] = [];
  const malformed: MalformedLine[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = uploadLine(lines[i]!);
    // A line of the table's name alone is a header, as for every table (tabledata.ts): no row.
    if (raw.trim() === '' || isTableHeader(raw, 'rtlog')) continue;
    const line = i + 1;
    const bad = (reason: string) => malformed.push(malformedLine(line, reason, raw));
    // As a tabledata row, the line names its table first (`rtlog time=...`): the tag is no field.
    const kv = keyValueFields(raw.replace(RTLOG_TAG, ''));
    if (kv === undefined) {
      bad('not TAB-separated key=value fields');
      continue;
    }
    const row = accessRow(
      line,
      {
        time: kv.get('time'),
        pin: kv.get('pin') ?? '',
        event: int(kv.get('event')),
        verify: int(kv.get('verifytype')),
        inout: int(kv.get('inoutstatus')),
      },
      { time: 'no time= field', event: 'no event= code' },
    );
    if (typeof row === 'string') bad(row);
    else rows.push(row);
  }
  return { rows, malformed };
}

/** An access event's fields, as a table names them (rtlog, transaction). */
export interface AccessFields {
  time: string | undefined;
  pin: string;
  event: number | null;
  verify: number | null;
  inout: number | null;
}

/**
 * The row of one access event (rtlog, the transaction table), or why the line cannot be read (it is
 * then kept raw). `missing`: what to say of an absent time or event, in the table's own field names.
 * A time that is there but not valid is kept (journalled and quarantined, visibly), unless it holds
 * control characters or nothing.
 */
export function accessRow(line: number, f: AccessFields, missing: { time: string; event: string }): RtlogRow | string {
  // `2026-11-30T01:02:03` is the same wall clock written as ISO 8601 does (no zone: a zone would
  // make it another time, and stays an unreadable one); see wall-time.ts.
  const time = f.time === undefined ? undefined : wallTimeOf(f.time);
  if (time === undefined) return missing.time;
  if (f.event === null) return missing.event;
  if (!isNobody(f.pin)) {
    const problem = codeProblem(f.pin);
    if (problem) return problem;
  }
  const validTime = isLogTime(time);
  if (!validTime && (/\p{Cc}|\p{Cf}/u.test(time) || time === '')) return `bad time "${printable(time, 30)}"`;
  return {
    line,
    time: validTime ? time : time.slice(0, MAX_BAD_TIME),
    validTime,
    pin: f.pin,
    event: f.event,
    verify: f.verify,
    inout: f.inout,
  };
}

/** `pin` empty or 0: nobody (a door event, an unregistered card). */
export const isNobody = (pin: string) => pin === '' || pin === '0';
