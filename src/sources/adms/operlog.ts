import { malformedLine } from './malformed.js';
import { uploadLine } from './upload-line.js';
import type { PushUser } from '../../journal/types.js';
import { codeProblem } from '../../punch.js';
import { boundedText } from '../../util/bounded-text.js';
import { printable } from '../../util/terminal-text.js';
import type { MalformedLine } from './attlog.js';

/**
 * The body of `POST /iclock/cdata?table=OPERLOG` (and `table=USERINFO`): one record per line,
 * `USER PIN=1\tName=Jane\tPri=0\tPasswd=..\tCard=..\tGrp=1\tTZ=..`, `FP PIN=..\tFID=..\tTMP=..`,
 * `OPLOG 4\t0\t2026-...`, `USERPIC ...`, `BIODATA ...`. Only the user records are kept (PIN,
 * name, card, privilege): never passwords, fingerprint or face templates, or photos.
 */
export interface ParsedOperlog {
  users: PushUser[];
  /** Lines read (kept or not): the count answered as `OK:<n>`. */
  processed: number;
  malformed: MalformedLine[];
  /** Records read and known but not kept, by record type (FP, FACE, BIODATA, USERPIC, OPLOG...). */
  known: Map<string, number>;
}

/** Record types of OPERLOG that are known and not kept: templates, photos, the operation log. */
const KNOWN_RECORDS = new Set([
  'FP',
  'FACE',
  'BIODATA',
  'BIOPHOTO',
  'USERPIC',
  'OPLOG',
  'FVEIN',
  'PALM',
  'IDCARD',
  'WORKCODE',
  'SMS',
  'USER_SMS',
]);

/** `Key=value` fields of a tab-separated record (keys as sent, first one wins). */
export function keyValues(fields: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of fields) {
    const eq = f.indexOf('=');
    if (eq <= 0) continue;
    const key = f.slice(0, eq).trim();
    if (!out.has(key)) out.set(key, f.slice(eq + 1).trim());
  }
  return out;
}

/** A USER record (the leading `USER ` already removed, or absent as in USERINFO uploads). */
export function parseUserFields(rest: string): PushUser | { problem: string } {
  const kv = keyValues(rest.split('\t'));
  const pin = kv.get('PIN') ?? kv.get('Pin') ?? '';
  const problem = codeProblem(pin);
  if (problem) return { problem };
  const pri = kv.get('Pri') ?? kv.get('Privilege');
  return {
    pin,
    name: boundedText(kv.get('Name') ?? '', 64),
    card: boundedText(kv.get('Card') ?? kv.get('CardNo') ?? '', 32),
    privilege: pri !== undefined && /^\d{1,3}$/.test(pri) ? Number(pri) : null,
  };
}

export function parseOperlog(body: string): ParsedOperlog {
  const users: PushUser[] = [];
  const malformed: MalformedLine[] = [];
  const known = new Map<string, number>();
  let processed = 0;
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = uploadLine(lines[i]!);
    if (raw.trim() === '') continue;
    processed++;
    // The record type ends at a space (ZKTeco's document: `USER PIN=..`) or a TAB (`USER\tPIN=..`,
    // `OPLOG\t4\t..`: eSSL K30 Pro units as a deployed server's code notes them, and other
    // published servers' fixtures); either way the fields after it are TAB-separated.
    const m = /^(\w+)[ \t]+(.*)$/s.exec(raw);
    const kind = m?.[1]?.toUpperCase() ?? '';
    // USERINFO uploads carry the fields without the leading record type.
    const userFields = kind === 'USER' ? m![2]! : raw.startsWith('PIN=') ? raw : undefined;
    if (userFields === undefined) {
      // FP, FACE, BIODATA, USERPIC, OPLOG...: read, counted, not kept (templates and photos are biometric).
      if (KNOWN_RECORDS.has(kind)) known.set(kind, (known.get(kind) ?? 0) + 1);
      else malformed.push(malformedLine(i + 1, `unknown record type "${printable(kind, 20)}"`, raw, 40));
      continue;
    }
    const u = parseUserFields(userFields);
    if ('problem' in u) malformed.push(malformedLine(i + 1, u.problem, raw, 40));
    else users.push(u);
  }
  return { users, processed, malformed, known };
}
