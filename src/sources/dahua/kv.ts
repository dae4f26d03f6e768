/**
 * The answers of Dahua's CGI: `key=value` lines (`sn=7G0C1E2PAZ00001`, `found=2`,
 * `records[0].RecNo=12`, `records[0].CardName=Ana`), CRLF or LF, values taken as they are (a
 * value may hold `=`). Errors are `Error` and a reason on the next line (`Bad Request!`).
 */

/** Each `key=value` line of an answer, in order (lines without `=` are left out). */
export function parseLines(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf('=');
    if (i <= 0) continue;
    out.set(line.slice(0, i).trim(), line.slice(i + 1).replace(/\r$/, ''));
  }
  return out;
}

/** The answer is the firmware's error text (`Error\r\nBad Request!`) rather than data. */
export function errorText(text: string): string | undefined {
  const t = text.trimStart();
  if (!/^Error\b/i.test(t)) return undefined;
  return t.split(/\r?\n/).slice(1).join(' ').trim().slice(0, 200) || 'Error';
}

/**
 * The `records[i].Field=value` lines grouped per record, in the order of their index. Indexes
 * beyond `maxRecords` are not kept (a device that numbers its records wildly cannot grow this).
 */
export function parseRecords(
  lines: Map<string, string>,
  prefix = 'records',
  maxRecords = 100_000,
): Map<string, string>[] {
  const byIndex = new Map<number, Map<string, string>>();
  const re = new RegExp(`^${prefix}\\[(\\d{1,9})\\]\\.(.+)$`);
  for (const [k, v] of lines) {
    const m = re.exec(k);
    if (!m) continue;
    const i = Number(m[1]);
    if (i >= maxRecords) continue;
    let r = byIndex.get(i);
    if (!r) byIndex.set(i, (r = new Map()));
    r.set(m[2]!, v);
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
}

/**
 * A record search's answer in one pass over its text: `found=` and the records, without a map of
 * every line first (a page of 500 records is 7,000 lines, and a poll reads hundreds of pages).
 */
export function parseRecordAnswer(
  text: string,
  maxRecords: number,
): { found?: string; records: Map<string, string>[] } {
  const byIndex = new Map<number, Map<string, string>>();
  let found: string | undefined;
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const line = text.charCodeAt(end - 1) === 13 ? text.slice(at, end - 1) : text.slice(at, end);
    at = end + 1;
    if (line.startsWith('records[')) {
      const close = line.indexOf('].', 8);
      const eq = line.indexOf('=', close);
      if (close < 0 || eq < 0 || close > 17) continue;
      const i = Number(line.slice(8, close));
      if (!Number.isInteger(i) || i < 0 || i >= maxRecords) continue;
      let r = byIndex.get(i);
      if (!r) byIndex.set(i, (r = new Map()));
      r.set(line.slice(close + 2, eq), line.slice(eq + 1));
    } else if (line.startsWith('found=')) found = line.slice(6);
  }
  const records =
    byIndex.size > 0 && [...byIndex.keys()].every((k, n) => k === n)
      ? [...byIndex.values()]
      : [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
  return { found, records };
}
