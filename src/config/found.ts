/**
 * How a config value is named in a message: what was expected and what was found, in the
 * words of a person who wrote the YAML file ("a number", "the text "24370"").
 */

/** A key whose value must never be echoed (a comm key, a password, a token, a secret). */
export function isSecretKey(key: PropertyKey | undefined): boolean {
  if (typeof key !== 'string') return false;
  if (/(file|path)$/i.test(key)) return false;
  return /(key|password|passwd|secret|token|credentials?)$/i.test(key);
}

const MAX_TEXT = 60;

/**
 * `"text"` with control characters escaped, a URL's user and password, query and fragment left out, and a long text
 * cut short. The credentials go first: a long password cut in half would no longer be followed by
 * its `@`. They run to the last `@` of the authority (`u:p@ss@host` is password `p@ss`), and a user
 * name alone (`https://TOKEN@host`) is as secret as a password.
 */
export function quoted(s: string): string {
  const shown = s
    .replace(/(\/\/)[^\s/"#?]*@/g, '$1(user and password not shown)@')
    // A URL's query and fragment may hold a key (`?api_key=...`): left out too, whole.
    .replace(/(\/\/[^\s"]*?)([?#])[^\s"]*/g, '$1$2(not shown)');
  return JSON.stringify(shown.length > MAX_TEXT ? `${shown.slice(0, MAX_TEXT)}...` : shown);
}

/** What a value is, as found in the file: `the text "24370"`, `the number 5`, `true`, `a list`. */
export function foundValue(value: unknown, secret: boolean): string {
  if (value === null || value === undefined) return 'nothing (the value is empty)';
  if (typeof value === 'string') {
    if (secret) return 'text (not shown: it is a secret)';
    return value === '' ? 'an empty text' : `the text ${quoted(value)}`;
  }
  if (typeof value === 'number') return secret ? 'a number (not shown: it is a secret)' : `the number ${value}`;
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a section of keys';
  return typeof value;
}

/** A scalar value as written in a short remark: `"tcpp"`, `70000`. */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** zod's `expected` names in plain words. */
export function expectedType(expected: string): string {
  switch (expected) {
    case 'number':
      return 'a number';
    case 'int':
      return 'a whole number';
    case 'boolean':
      return 'true or false';
    case 'string':
      return 'text';
    case 'array':
    case 'tuple':
    case 'set':
      return 'a list';
    case 'object':
    case 'record':
    case 'map':
      return 'a section of keys';
    case 'date':
      return 'a date';
    case 'null':
      return 'empty';
    default:
      return expected;
  }
}

/** An accepted value as written in the list of choices: `"tcp"`, `5`, `false`. */
export function choice(v: unknown): string {
  return typeof v === 'string' ? `"${v}"` : String(v);
}
