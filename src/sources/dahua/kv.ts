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
 *
 * An answer cut short (firmware whose answer buffer is smaller than the page: fewer records than
 * its `found=` says) has its last record left out (`cut`) when that record shows the cut: its line
 * has no line end (its value may be cut short: UserID=1000 of 1000120, another person's code), or
 * it has fewer fields than the first record. The next page, which starts at the newest record
 * read, brings it whole. A whole answer whose last line merely lacks its line end is read as it is.
 */
export function parseRecordAnswer(
  text: string,
  maxRecords: number,
): { found?: string; records: Map<string, string>[]; cut?: boolean } {
  const byIndex = new Map<number, Map<string, string>>();
  let found: string | undefined;
  let at = 0;
  /** The record the text's last line belongs to, when that line has no line end. */
  let unendedIndex: number | undefined;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    const unended = end < 0;
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
      if (unended) unendedIndex = i;
    } else if (line.startsWith('found=')) found = line.slice(6);
  }
  const records =
    byIndex.size > 0 && [...byIndex.keys()].every((k, n) => k === n)
      ? [...byIndex.values()]
      : [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
  const said = found !== undefined && /^\s*\d+\s*$/.test(found) ? Number(found) : undefined;
  const last = records.at(-1);
  const fewerFields = last !== undefined && records.length >= 2 && last.size < records[0]!.size;
  const cut =
    last !== undefined &&
    said !== undefined &&
    said > records.length &&
    (fewerFields || (unendedIndex !== undefined && byIndex.get(unendedIndex) === last));
  if (cut) records.pop();
  return { found, records, ...(cut ? { cut: true } : {}) };
}
