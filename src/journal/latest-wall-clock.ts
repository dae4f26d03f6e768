import { utcWallClock, wallClockAt, wallClockDiffSeconds } from '../punch.js';

/**
 * How far back a fall-back change is looked for: the largest change of any zone is 2 h
 * (Antarctica/Troll), and no zone changes twice within this span.
 */
const LOOKBACK_MS = 3 * 3600_000;

/**
 * The latest wall-clock time (in `zone`, else the box's) shown at any instant up to `endMs`.
 *
 * Not simply the wall clock at `endMs`: when the clocks fall back (03:00 summer time becomes 02:00
 * winter time), the wall clock at 02:05 winter time is earlier than the one a minute before the
 * change (02:59 summer time), so a punch recorded at 02:59 and read at 02:05 is no later than any
 * clock could have shown. The last second before such a change within the span counts too.
 */
export function latestWallClockUpTo(endMs: number, zone: string | undefined): string {
  const end = Math.floor(endMs / 1000) * 1000;
  const atEnd = wallClockAt(end, zone);
  const offsetAtEnd = offsetSeconds(end, zone);
  let lo = end - LOOKBACK_MS;
  if (offsetSeconds(lo, zone) <= offsetAtEnd) return atEnd;
  // A fall-back change lies between lo and end: find the last second before it.
  let hi = end;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetSeconds(mid, zone) > offsetAtEnd) lo = mid;
    else hi = mid;
  }
  const beforeChange = wallClockAt(lo, zone);
  return beforeChange > atEnd ? beforeChange : atEnd;
}

/** The zone's offset from UTC at instant `ms`, in seconds (east positive). */
function offsetSeconds(ms: number, zone: string | undefined): number {
  return wallClockDiffSeconds(wallClockAt(ms, zone), utcWallClock(ms));
}
