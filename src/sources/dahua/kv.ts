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
