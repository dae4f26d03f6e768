/**
 * The one way an instant is shown to a person (status, the status page, the log in --pretty,
 * `terminals`, `punches`, every other listing): the box's local time with its offset from UTC,
 * `2026-11-23 14:05:09 +01:00`, so that nobody has to guess the zone. The JSON log and JSON
 * outputs keep UTC ISO. Read with the Date getters, not Intl (whose locale data costs megabytes
 * of resident memory). A punch's own log time is the terminal's wall clock and is shown as the
 * terminal recorded it, never through here.
 */
export function localTime(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return 'unknown time';
  const p = (n: number) => String(n).padStart(2, '0');
  const offset = -d.getTimezoneOffset();
  const abs = Math.abs(offset);
  const zone = `${offset < 0 ? '-' : '+'}${p(Math.floor(abs / 60))}:${p(abs % 60)}`;
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ${zone}`;
}

/** An ISO time (as the status report and the journal's JSON carry it) shown by `localTime`; `never` when absent. */
export function localTimeOf(iso: string | null | undefined, none = 'never'): string {
  return iso ? localTime(Date.parse(iso)) : none;
}
