/**
 * The `key=value` fields of one line of a Security PUSH upload (rtlog, rtstate, tabledata):
 * TAB-separated as the vendor document writes them; some firmware (and the document's own
 * examples, as printed) separate them by spaces instead, which is read too: a space counts as a
 * separator only before another `key=`, so `time=2026-09-15 15:32:41` stays one field.
 * Keys are compared in lower case; the first of a repeated key wins.
 */
export function keyValueFields(line: string): Map<string, string> | undefined {
  const fields = line.includes('\t') ? line.split('\t') : line.split(/ +(?=[A-Za-z~][\w~]*=)/);
  const out = new Map<string, string>();
  for (const f of fields) {
    if (f.trim() === '') continue;
    const eq = f.indexOf('=');
    if (eq <= 0) return undefined;
    const key = f.slice(0, eq).trim().toLowerCase();
    if (!out.has(key)) out.set(key, f.slice(eq + 1).trim());
  }
  return out.size > 0 ? out : undefined;
}
