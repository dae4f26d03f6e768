/**
 * What a terminal's `lastPollAt` is, in the words of its kind. A serial reader is not polled: it
 * sends lines (or card frames) when someone badges, so its time is that of its last read (before
 * the first read, when its device was opened or tried). A push terminal is not polled either: it
 * calls this box, so its time is that of its last call (push.ts: "no call since ..."; not "contact",
 * the page's column of every kind's last success). Every other kind is polled.
 */
function activityWord(kind: string): 'read' | 'call' | 'poll' {
  return kind === 'serial' ? 'read' : kind === 'adms' ? 'call' : 'poll';
}

/** "last read", "last call" or "last poll". */
export function lastActivityLabel(kind: string): string {
  return `last ${activityWord(kind)}`;
}

/** A terminal with no `lastPollAt` yet: a serial reader's device has not been opened yet, a push terminal has not called. */
export function notYetLabel(kind: string): string {
  const word = activityWord(kind);
  return word === 'read' ? 'not opened yet' : word === 'call' ? 'no call yet' : 'not polled yet';
}

/** The column heading over terminals of these kinds ("last poll / read" over both). */
export function lastActivityHeading(kinds: readonly string[]): string {
  const words = [...new Set(kinds.map(activityWord))];
  return `last ${words.length === 0 ? 'poll' : words.join(' / ')}`;
}

/**
 * One terminal's time under lastActivityHeading(kinds): under a heading of one word, the time
 * alone; under a mixed one, the time with its own word ("read 2026-11-22 12:00:00"), so that no
 * reader's time reads as a poll.
 */
export function lastActivityValue(kind: string, kinds: readonly string[], time: string): string {
  const mixed = new Set(kinds.map(activityWord)).size > 1;
  return mixed ? `${activityWord(kind)} ${time}` : time;
}
