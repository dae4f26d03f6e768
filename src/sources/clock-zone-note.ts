import { clockSpan, wholeHalfHours, wholeHours } from '../util/clock-offset.js';
import type { NoteWords } from './device-notes.js';

/**
 * With `syncClock: true`, a terminal whose clock is off is set to the box's time in the config's
 * `timezone` (the box's own zone without one). Off by whole hours (or half hours), the terminal
 * may well have been right in the zone it runs in and the config's zone be the wrong one: then
 * every punch it records from then on is that many hours off, and the next poll finds its clock
 * agreeing, so nothing said it (found by the left-outs review). Said when it is set so: in the
 * log and as a note (a status alert for a day), with the fix. Null for an ordinary drift.
 */
export function clockSetAcrossZone(
  terminal: string,
  skewSeconds: number,
  timezone: string | undefined,
): NoteWords | null {
  if (wholeHours(skewSeconds) === null && wholeHalfHours(skewSeconds) === null) return null;
  const span = clockSpan(skewSeconds);
  const zone = timezone ?? "the box's own time zone (no timezone in the config)";
  return {
    cause: `its clock was ${span} ${skewSeconds > 0 ? 'ahead of' : 'behind'} the box's time in ${zone}, a time zone's difference, and punchgate set it to that time (syncClock is on)`,
    fix: `look at the terminal's display: if it showed the right local time before, the zone in the config is wrong and the punches it records now are ${span} off: set timezone for ${terminal} in the config to the zone it runs in (the next poll sets its clock back) and check its punches since; if its time was wrong (daylight saving time, a clock that was reset), nothing to do`,
  };
}
