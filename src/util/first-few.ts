/**
 * "a, b, c, d, e and 195 more": a list a log line or a message can hold, however long the list
 * (a refusal of 200 punches once named 100 ids in one line no admin could read). `whereAll`
 * follows "more" when some are left out: where the whole list is found. `separator`: between two
 * items, `; ` for items that hold commas themselves (a config's or a schema's problems).
 */
export function firstFew(items: readonly string[], shown: number, whereAll?: string, separator = ', '): string {
  const few = items.slice(0, shown);
  const more = items.length - few.length;
  if (more <= 0) return few.join(separator);
  return `${few.join(separator)} and ${more} more${whereAll ? ` (${whereAll})` : ''}`;
}
