/**
 * Text a device sent that punchgate keeps as data (a user's name or card in the journal): kept as
 * sent, only bounded. It is never escaped here: an escape (`\u200d`) stored as data is another
 * name than the one on the terminal, and every comparison with the roster then differs (a sync
 * that rewrites those users at every run). Whatever shows it escapes it then (terminal-text.ts).
 */

/** `text` as sent, cut to its first `max` characters (code points: never half a surrogate pair). */
export function boundedText(text: string, max: number): string {
  if (text.length <= max) return text;
  return [...text].slice(0, max).join('');
}
