import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { parseConfigText, type ConfigError } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';
import { descriptionAt } from '../../src/config/schema-keys.js';

/**
 * "is required" says what to put there (found by a new-user trial: `terminals[2] (canteen).host:
 * is required` left the admin to guess). What is expected is the key's own schema description.
 */

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  values?: unknown[];
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
function unwrap(s: z.ZodType): z.ZodType {
  for (let d = defOf(s); d.innerType ?? (d.type === 'pipe' ? d.in : undefined); d = defOf(s))
    s = (d.innerType ?? d.in)!;
  return s;
}

/** Every key of the schema without a default, with a config as written that picks its union member. */
function requiredKeys(s: z.ZodType, path: PropertyKey[], raw: Record<string, unknown>): [PropertyKey[], unknown][] {
  const d = defOf(unwrap(s));
  if (d.type === 'union')
    return d.options!.flatMap((o) => {
      const disc = d.discriminator;
      const kind = disc ? defOf(unwrap(defOf(unwrap(o)).shape![disc]!)).values![0] : undefined;
      return requiredKeys(o, path, disc ? setAt(raw, [...path, disc], kind) : raw);
    });
  if (d.type === 'array') return requiredKeys(d.element!, [...path, 0], raw);
  if (d.type !== 'object') return [];
  return Object.entries(d.shape!).flatMap(([k, v]) => {
    const inner = defOf(unwrap(v)).type;
    // A missing kind, or a key of fixed choices, already lists the choices ("is required (one of ...)").
    const choices = inner === 'enum' || inner === 'literal';
    const own: [PropertyKey[], unknown][] = v.safeParse(undefined).success || choices ? [] : [[[...path, k], raw]];
    return [...own, ...requiredKeys(v, [...path, k], raw)];
  });
}
function setAt(raw: Record<string, unknown>, path: PropertyKey[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(raw);
  let here: Record<PropertyKey, unknown> = copy;
  path.slice(0, -1).forEach((seg, i) => {
    here[seg] ??= typeof path[i + 1] === 'number' ? [] : {};
    here = here[seg] as Record<PropertyKey, unknown>;
  });
  here[path[path.length - 1]!] = value;
  return copy;
}

describe('a required key that is missing', () => {
  it('every required key of the config has a description of what it expects', () => {
    const keys = requiredKeys(configSchema, [], {});
    // The walk sees the keys of every terminal and sink kind (a guard against a walk that finds none).
    expect(keys.length).toBeGreaterThan(20);
    const bare = keys.filter(([path, raw]) => !descriptionAt(configSchema, path, raw)).map(([p]) => p.join('.'));
    expect(bare).toEqual([]);
  });

  it('says what to write, with the line and the terminal name', () => {
    const yaml = `site: plant-a
journal:
  path: j.db
hrms:
  baseUrl: https://hr.example.com
terminals:
  - name: office
    kind: adms
  - name: canteen
    kind: zk
  - kind: zk
    host: 10.0.0.3
adms:
  listen: 0.0.0.0:8081
`;
    let problems: string[] = [];
    try {
      parseConfigText(yaml, 'noaddr.yaml', '/etc/punchgate');
    } catch (e) {
      problems = (e as ConfigError).problems;
    }
    expect(problems).toEqual([
      "noaddr.yaml:7: terminals[0] (office).serial: is required: the terminal's serial number, as its System Info shows it and the SN= it sends (e.g. CQZ7232160001)",
      "noaddr.yaml:9: terminals[1] (canteen).host: is required: the terminal's IP address or host name (e.g. 192.168.1.201)",
      "noaddr.yaml:11: terminals[2].name: is required: a name of the terminal's own, used in commands, logs and the status (e.g. gate-1)",
    ]);
  });

  it('a config without site or journal says what each is', () => {
    let problems: string[] = [];
    try {
      parseConfigText('hrms:\n  baseUrl: https://hr.example.com\n', 'p.yaml', '/etc/punchgate');
    } catch (e) {
      problems = (e as ConfigError).problems;
    }
    expect(problems.join('\n')).toMatch(/site: is required: a name of this site, .*\(e\.g\. plant-a\)/);
    expect(problems.join('\n')).toMatch(/journal: is required: the journal section/);
  });
});
