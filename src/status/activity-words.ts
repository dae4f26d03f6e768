/**
 * What a terminal's `lastPollAt` is, in the words of its kind. A serial reader is not polled: it
 * sends lines (or card frames) when someone badges, so its time is that of its last read (before
 * the first read, when its device was opened or tried). Every other kind is polled, or is a push
 * terminal, which has rows of its own.
 */
export function lastActivityLabel(kind: string): string {
  return kind === 'serial' ? 'last read' : 'last poll';
}

/** A terminal with no `lastPollAt` yet: a serial reader's device has not been opened yet. */
export function notYetLabel(kind: string): string {
  return kind === 'serial' ? 'not opened yet' : 'not polled yet';
}

/** The page's column heading over terminals of these kinds. */
export function lastActivityHeading(kinds: readonly string[]): string {
  const labels = [...new Set(kinds.map(lastActivityLabel))];
  return labels.length === 1 ? labels[0]! : 'last poll / read';
}
