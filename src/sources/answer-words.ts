/** Characters of a server's words quoted in a message at most. */
export const MAX_QUOTED = 120;

/**
 * Words a server put in its answer, made fit to quote in a message: the secrets the client holds
 * taken out first (`scrub`), then one printable line, cut short. The words must be decoded
 * already (JSON strings parsed, entities read): a secret is looked for as the server meant it,
 * not as it escaped it (`pa\"ss` in a raw JSON body is `pa"ss`). Scrubbed before the cut, so a
 * cut never leaves half a secret that no longer matches.
 */
export function quotedWords(words: string, scrub: (text: string) => string, max = MAX_QUOTED): string {
  return scrub(words)
    .replace(/[^\x20-\x7e]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max);
}

/**
 * Text that is not JSON (an HTML error page, a body cut short) with the escapes a server may
 * write its words in read: JSON string escapes and HTML entities. What it quotes is then
 * scrubbed as it was meant (`pa&quot;ss` and `pa\"ss` are both `pa"ss`).
 */
export function decodedText(text: string): string {
  return text
    .replace(/\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g, (_, e: string) =>
      e[0] === 'u' ? String.fromCharCode(parseInt(e.slice(1), 16)) : (JSON_ESCAPES[e] ?? e),
    )
    .replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|[a-z]+);/g, (m, e: string) => {
      if (e[0] !== '#') return HTML_ENTITIES[e] ?? m;
      const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
      return code <= 0x10ffff ? String.fromCodePoint(code) : m;
    });
}

const JSON_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const HTML_ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" };
