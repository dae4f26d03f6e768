import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair } from 'yaml';

/**
 * The line of the config file a problem is about: the line of the key at `path` when it is
 * written in the file, else the line of the deepest section on the way to it (a missing key is
 * reported at the section that lacks it). Undefined when nothing on the path is in the file.
 *
 * Anchors and merge keys (`<<: *defaults`) are followed: a value written once under an anchor is
 * reported where it is written, and a key missing from an aliased section (`- *gate`) where the
 * alias is used.
 */
export function lineOf(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): number | undefined {
  const lineAt = (n: unknown) => {
    const range = (n as Node | null | undefined)?.range;
    return range ? lines.linePos(range[0]).line : undefined;
  };
  const resolve = (n: unknown): unknown => (isAlias(n) ? (n.resolve(doc) ?? null) : n);

  /** The pair of `key` in a mapping, looking into the sections it merges in. */
  const pairOf = (map: unknown, key: PropertyKey, depth = 0): Pair | undefined => {
    const m = resolve(map);
    if (!isMap(m) || depth > 10) return undefined;
    const keyOf = (p: Pair) => {
      const k = isScalar(p.key) ? p.key.value : p.key;
      return typeof k === 'symbol' ? (k.description ?? '') : String(k); // a merge key is Symbol(<<)
    };
    const direct = m.items.find((p) => keyOf(p) === String(key));
    if (direct) return direct;
    for (const p of m.items.filter((x) => keyOf(x) === '<<')) {
      const v = resolve(p.value);
      const sources = isSeq(v) ? v.items : [v];
      for (const s of sources) {
        const found = pairOf(s, key, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  };

  let node: unknown = doc.contents;
  let at = lineAt(node);
  for (const seg of path) {
    // Where this node is used (an alias's own line), before following it to its anchor.
    at = lineAt(node) ?? at;
    const target = resolve(node);
    if (isMap(target)) {
      const pair = pairOf(target, seg);
      if (!pair) return at;
      at = lineAt(pair.key) ?? at;
      node = pair.value;
    } else if (isSeq(target) && typeof seg === 'number') {
      const item = target.items[seg];
      if (item === undefined) return at;
      node = item;
      at = lineAt(item) ?? at;
    } else {
      return at;
    }
  }
  return at;
}
