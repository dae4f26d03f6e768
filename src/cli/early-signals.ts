/**
 * Imported first by main.ts, so that it runs before the rest of punchgate loads: a stop signal
 * that comes meanwhile is held for the command that handles it (a simulator stops cleanly, exit 0)
 * instead of killing the process half-loaded (src/util/signals.ts).
 */
import { holdEarlyStopSignals } from '../util/signals.js';

holdEarlyStopSignals();
