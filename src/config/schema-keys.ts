import type { z } from 'zod';

/**
 * The keys a schema accepts at a place in the config, found by walking the zod schema itself
 * (so a key or a terminal kind added to the schema is known here without another list).
 * `raw` is the config as written: it picks the member of a discriminated union (`kind: zk`).
 */

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  values?: unknown[];
  getter?: () => z.ZodType;
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema one wrapper in (optional, default, prefault, a transform's input...), if it is one. */
function inner(s: z.ZodType): z.ZodType | undefined {
  const d = defOf(s);
  return d.innerType ?? (d.type === 'pipe' ? d.in : undefined) ?? d.getter?.();
}

/** The schema under its wrappers. */
function unwrap(s: z.ZodType): z.ZodType {
  for (let i = 0; i < 20; i++) {
    const next = inner(s);
    if (!next) return s;
    s = next;
  }
  return s;
}

/** The object members of a union that fit `raw` (by its discriminator when it has a known value). */
function members(s: z.ZodType, raw: unknown): z.ZodType[] {
  const d = defOf(s);
  if (d.type !== 'union' || !d.options) return [s];
  const options = d.options.map(unwrap);
  const disc = d.discriminator;
  const value = disc && raw && typeof raw === 'object' ? (raw as Record<string, unknown>)[disc] : undefined;
  if (disc && value !== undefined) {
    const fit = options.filter((o) => {
      const lit = defOf(o).shape?.[disc];
      return lit !== undefined && (defOf(unwrap(lit)).values ?? []).includes(value);
    });
    if (fit.length > 0) return fit;
  }
  return options;
}

function childSchemas(s: z.ZodType, seg: PropertyKey, raw: unknown): z.ZodType[] {
  return members(unwrap(s), raw).flatMap((m) => {
    const d = defOf(unwrap(m));
    if (d.type === 'object' && typeof seg === 'string' && d.shape?.[seg]) return [d.shape[seg]];
    if (d.type === 'array' && typeof seg === 'number' && d.element) return [d.element];
    if (d.type === 'record' && d.valueType) return [d.valueType];
    return [];
  });
}

const childRaw = (raw: unknown, seg: PropertyKey): unknown =>
  raw && typeof raw === 'object' ? (raw as Record<PropertyKey, unknown>)[seg] : undefined;

/** The schemas of the place at `path` (one per union member that fits), and the value written there. */
function schemasAt(
  schema: z.ZodType,
  path: readonly PropertyKey[],
  raw: unknown,
): { here: z.ZodType[]; value: unknown } {
  let here = [schema];
  let value = raw;
  for (const seg of path) {
    here = here.flatMap((s) => childSchemas(s, seg, value));
    value = childRaw(value, seg);
  }
  return { here, value };
}

/**
 * What the key at `path` expects, in the words its schema was described with (`.describe()`, on
 * the key or under its wrappers): `is required` says it (issues.ts).
 */
export function descriptionAt(schema: z.ZodType, path: readonly PropertyKey[], raw: unknown): string | undefined {
  for (let s of schemasAt(schema, path, raw).here)
    for (let i = 0; i < 20 && s; i++) {
      if (s.description) return s.description;
      const next = inner(s);
      if (!next) break;
      s = next;
    }
  return undefined;
}

/** The keys accepted in the section at `path`; empty when it is not a section with fixed keys. */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[], raw: unknown): string[] {
  const { here, value } = schemasAt(schema, path, raw);
  const keys = new Set<string>();
  for (const s of here)
    for (const m of members(unwrap(s), value)) for (const k of Object.keys(defOf(unwrap(m)).shape ?? {})) keys.add(k);
  return [...keys];
}
