import type { z } from 'zod';
import { DEFAULT_SINK_NAME } from './sinks.js';

/**
 * Names and serials given twice: terminal names (letter case aside: they are typed in commands and
 * two that differ only in case could not be told apart), push terminals' serials (letter case
 * aside, as the receiver matches them) and sink names. Run even when other keys are wrong, so
 * these are reported with the rest, not only once the rest is fixed: it may see the config as
 * written, so it reads only entries that are objects with text in the key.
 */
export function checkDuplicates(
  c: { terminals?: unknown; sinks?: unknown; hrms?: unknown },
  ctx: z.RefinementCtx,
): void {
  const firstName = new Map<string, { index: number; name: string }>();
  for (const { index, value: name } of textsOf(c.terminals, 'name')) {
    const first = firstName.get(name.toLowerCase());
    if (first === undefined) {
      firstName.set(name.toLowerCase(), { index, name });
      continue;
    }
    ctx.addIssue({
      code: 'custom',
      path: ['terminals', index, 'name'],
      message:
        first.name === name
          ? `duplicate terminal name "${name}": terminals[${first.index}] has it already; give each terminal its own name`
          : `terminal name "${name}" differs only in letter case from terminals[${first.index}] ("${first.name}"): give each terminal a name of its own`,
    });
  }

  const serialOf = new Map<string, string>();
  const terminals = Array.isArray(c.terminals) ? (c.terminals as unknown[]) : [];
  for (const { index, value: serial } of textsOf(c.terminals, 'serial')) {
    const t = terminals[index] as { kind?: unknown; name?: unknown };
    if (t.kind !== 'adms') continue;
    const other = serialOf.get(serial.toUpperCase());
    if (other !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['terminals', index, 'serial'],
        message: `serial ${serial} is already the serial of terminal "${other}"`,
      });
    else serialOf.set(serial.toUpperCase(), typeof t.name === 'string' ? t.name : `terminals[${index}]`);
  }

  const sinkNames = new Set<string>(c.hrms !== undefined ? [DEFAULT_SINK_NAME] : []);
  for (const { index, value: name } of textsOf(c.sinks, 'name')) {
    if (sinkNames.has(name))
      ctx.addIssue({
        code: 'custom',
        path: ['sinks', index, 'name'],
        message:
          name === DEFAULT_SINK_NAME && c.hrms !== undefined
            ? `"${name}" is the name of the sink the hrms: block makes: give this one another name`
            : `duplicate sink name "${name}"`,
      });
    sinkNames.add(name);
  }
}

/** The entries of `list` (an array, else none) whose `key` holds text, with their place in it. */
function textsOf(list: unknown, key: string): { index: number; value: string }[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry: unknown, index) => {
    const value = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)[key] : undefined;
    return typeof value === 'string' ? [{ index, value }] : [];
  });
}
