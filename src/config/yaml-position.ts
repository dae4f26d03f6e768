import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

/**
 * The line of the config file a problem is about: the line of the key at `path` when it is
 * written in the file, else the line of the deepest section on the way to it (a missing key is
 * reported at the section that lacks it). Undefined when nothing on the path is in the file.
 */
export function lineOf(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): number | undefined {
  let node: Node | null | undefined = doc.contents;
  let at: number | undefined;
  const lineAt = (n: Node | null | undefined) => (n?.range ? lines.linePos(n.range[0]).line : undefined);
  for (const seg of path) {
    if (isAlias(node)) node = node.resolve(doc) ?? null;
    if (isMap(node)) {
      at = lineAt(node) ?? at;
      const pair = node.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === String(seg));
      if (!pair) return at;
      at = lineAt(pair.key as Node) ?? at;
      node = pair.value as Node | null;
    } else if (isSeq(node) && typeof seg === 'number') {
      at = lineAt(node) ?? at;
      const item = node.items[seg] as Node | undefined;
      if (!item) return at;
      at = lineAt(item) ?? at;
      node = item;
    } else {
      return at;
    }
  }
  return at;
}
