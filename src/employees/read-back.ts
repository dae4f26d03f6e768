/**
 * What the HRMS's employee list shows after it answered "status true" to a create or an update.
 * An HRMS may say so and keep nothing (a mapping that drops the record, a plug-in that swallows
 * its own error): found by a trial, where `employees create` and `import` reported "created" for
 * employees the HRMS never held. Where the list can be fetched, it is read once after the changes
 * and each change it does not show is said; the fields the list does not carry cannot be checked
 * and are not doubted.
 */
import type { FetchAnswer } from '../hrms/users.js';
import { idKey, indexRecords, sameValue } from './diff.js';
import { fieldType, type FieldType, type Payload } from './payload.js';

export interface SentChange {
  /** The identifier's value (username, e-mail...). */
  id: string;
  payload: Payload;
  action: 'created' | 'updated';
}

export interface ReadBackOptions {
  fetch(): Promise<FetchAnswer>;
  identifyBy: string;
  types?: Readonly<Record<string, FieldType>>;
}

/**
 * For each change, why the list does not show it (undefined: it does, or cannot tell); `unchecked`
 * when the list could not be fetched.
 */
export async function readBack(
  changes: readonly SentChange[],
  opts: ReadBackOptions,
): Promise<{ problems: (string | undefined)[]; unchecked?: string }> {
  if (changes.length === 0) return { problems: [] };
  const answer = await opts.fetch();
  if (!answer.ok) {
    return {
      problems: changes.map(() => undefined),
      unchecked: `the HRMS's employee list could not be fetched to check what it did (${answer.message})`,
    };
  }
  const types = opts.types ?? {};
  const held = indexRecords(answer.records, opts.identifyBy, types);
  // A list under other field names (the master fields, not the payload's) cannot say who is in it.
  if (answer.records.length > 0 && held.size === 0) {
    return {
      problems: changes.map(() => undefined),
      unchecked: `the HRMS's employee list carries no "${opts.identifyBy}" field to find the employees sent by`,
    };
  }
  const said = 'the HRMS answered status true, but its employee list';
  const problems = changes.map((c) => {
    const who = `${opts.identifyBy} ${c.id}`;
    const record = held.get(idKey(c.id, opts.identifyBy, types));
    if (!record) return `${said} does not hold ${who} afterwards: not ${c.action}`;
    const stale = Object.entries(c.payload).filter(
      ([f, v]) => f !== opts.identifyBy && Object.hasOwn(record, f) && !sameValue(fieldType(f, types), v, record[f]),
    );
    if (stale.length === 0) return undefined;
    const shown = stale.map(([f]) => `${f} ${shortJson(record[f])}`).join(', ');
    return c.action === 'updated'
      ? `${said} still shows ${who} with ${shown} afterwards: not updated`
      : `${said} shows ${who} with ${shown} afterwards: not created as sent`;
  });
  return { problems };
}

function shortJson(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
