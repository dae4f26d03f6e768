/**
 * The query keys of the push protocol, read whatever their case. ZKTeco's document writes them
 * `SN=`, `table=`, `Stamp=`, `options=`..., but the servers push firmware was made against read
 * them whatever their case (ZKTeco's ASP.NET `cdata.aspx`: `Request["SN"]`), so firmware and
 * clones that write `sn=` or `TABLE=` work there; a receiver that reads only the document's
 * spelling answers them 400 and their punches wait on the terminal for ever.
 */
const KEYS = [
  'SN',
  'table',
  'tablename',
  'Stamp',
  'options',
  'pushver',
  'language',
  'INFO',
  'count',
  'cmdid',
  'type',
] as const;

const SPELLING = new Map<string, string>(KEYS.map((k) => [k.toLowerCase(), k]));

/**
 * `query` with each protocol key under the document's spelling. A key already present in that
 * spelling wins over other spellings of it; anything else is left as it came. The same object
 * when nothing needs renaming (nearly every request).
 */
export function protocolQuery(query: URLSearchParams): URLSearchParams {
  let out: URLSearchParams | undefined;
  for (const [key, value] of query) {
    const spelled = SPELLING.get(key.toLowerCase());
    if (spelled === undefined || spelled === key || query.has(spelled) || out?.has(spelled)) continue;
    out ??= new URLSearchParams(query);
    out.set(spelled, value);
  }
  return out ?? query;
}
