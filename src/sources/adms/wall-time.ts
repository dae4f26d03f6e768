/**
 * A push terminal's wall-clock time in the form punchgate keeps (`YYYY-MM-DD HH:MM:SS`), from the
 * forms firmware writes it in: the document's own, ISO 8601's `2024-05-06T08:01:02` (the same
 * wall clock, no zone), and either without seconds (`2024-05-06 08:01`: firmware that records
 * the minute only; its seconds are 00, as the terminal's own display shows them). Anything else
 * is returned as it came, for the caller to refuse: a time with a zone (`Z`, `+08:00`) names
 * another instant than the terminal's wall clock and is never read as one.
 */
const WALL = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?$/;

export function wallTimeOf(text: string): string {
  const m = WALL.exec(text);
  return m ? `${m[1]} ${m[2]}${m[3] ?? ':00'}` : text;
}
