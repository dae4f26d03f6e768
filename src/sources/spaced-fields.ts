/**
 * An ATTLOG line whose fields are separated by runs of spaces instead of TABs: some eSSL and clone
 * firmware writes its punches so, in its push uploads and in its USB stick exports alike. The
 * fields are the PIN, the date-time (whose own space separates the date from the time), then
 * small numbers if anything (the push form: status, verify...; the stick form: machine, state,
 * verify...), each after a run of two spaces or more. Read only when unambiguous: a single space
 * is how a date is written, not a field separator (such a line is no firmware's), so a line of
 * single spaces, or one without a full `YYYY-MM-DD HH:MM:SS` (or `YYYY/MM/DD HH:MM:SS`, year first,
 * as both readers of this form read it; the date and the time may be apart by more than one space,
 * as ZKTeco's GLG export writes `2026/11/23  07:58:12`), gives undefined.
 */
const SPACED = /^ *(\S+) {2,}(\d{4}(?:-\d{2}-|\/\d{2}\/)\d{2}) +(\d{2}:\d{2}:\d{2})((?: {2,}-?\d{1,6})*) *$/;

/** The fields of a space-separated ATTLOG line, as a tab-separated one gives them; else undefined. */
export function spaceSeparatedFields(raw: string): string[] | undefined {
  const m = SPACED.exec(raw);
  if (!m) return undefined;
  // The date and the time as one field, one space between them however many the line has.
  return [m[1]!, `${m[2]!} ${m[3]!}`, ...m[4]!.split(/ +/).filter((f) => f !== '')];
}
