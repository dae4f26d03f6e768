/**
 * A copy of a plain value (what JSON can hold: objects, arrays, strings, numbers, booleans, null)
 * with every string, at any depth, object keys too, replaced by `fn(string)` (a key can be a
 * serial or a reason from outside). Anything else (a Date, a class's object) is taken as JSON
 * would write it and then walked, so that a field of a new shape cannot slip past a scrubber
 * unread.
 */
export function mapStrings<T>(value: T, fn: (text: string) => string): T {
  return walk(value, fn) as T;
}

function walk(v: unknown, fn: (text: string) => string): unknown {
  if (typeof v === 'string') return fn(v);
  if (v === null || v === undefined || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map((x) => walk(x, fn));
  if (typeof v === 'object' && isPlain(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[fn(k)] = walk(x, fn);
    return out;
  }
  const json = JSON.stringify(v) as string | undefined;
  return json === undefined ? undefined : walk(JSON.parse(json), fn);
}

function isPlain(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
