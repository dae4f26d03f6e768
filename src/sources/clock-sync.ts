import type { Logger } from '../util/logger.js';
import { clockSetAcrossZone } from './clock-zone-note.js';
import type { NoteWords } from './device-notes.js';
import { agreesBeforeBoxStep, BOX_STEPPED_NOT_SET, type ClockSteps } from './types.js';

/** What `syncClock` needs of a terminal's settings. */
export interface ClockSyncSettings {
  name: string;
  syncClock: boolean;
  skewThresholdSeconds: number;
  timezone?: string | undefined;
}

/**
 * `syncClock` for a terminal found `skewSeconds` off the box's clock: sets it (`setTime`, to the
 * box's time in its zone) unless the difference is within the threshold, or the box's own clock
 * stepped and the terminal agrees with it from before the step (then the box is wrong, not the
 * terminal). A set across a time zone's difference is said (`note`, a status alert for a day).
 * One rule for every kind of terminal that punchgate sets the clock of.
 */
export async function syncTerminalClock(
  cfg: ClockSyncSettings,
  skewSeconds: number,
  deps: { clockSteps?: ClockSteps | undefined; log: Logger },
  setTime: () => Promise<void>,
  note: (words: NoteWords) => void,
): Promise<void> {
  if (!cfg.syncClock || Math.abs(skewSeconds) <= cfg.skewThresholdSeconds) return;
  const { clockSteps, log } = deps;
  if (agreesBeforeBoxStep(skewSeconds, clockSteps, cfg.skewThresholdSeconds, cfg.name)) {
    log.warn({ skewSeconds }, BOX_STEPPED_NOT_SET);
    return;
  }
  await setTime();
  clockSteps?.terminalClockSet(cfg.name);
  const acrossZone = clockSetAcrossZone(cfg.name, skewSeconds, cfg.timezone);
  if (acrossZone) {
    log.warn({ skewSeconds }, `terminal ${cfg.name}: ${acrossZone.cause}: ${acrossZone.fix}`);
    note(acrossZone);
  } else log.info({ skewSeconds }, 'terminal clock set to the box clock');
}
