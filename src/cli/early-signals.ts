/**
 * Imported first by main.ts, before the rest of punchgate loads. For the simulators only
 * (`punchgate [global options] sim ...`), a stop signal that comes while they load is held until
 * they listen, so that it is a clean stop (exit 0) rather than death by the signal (exit 143).
 * Decided from the command line here, never by a hook of the program: every other command, and
 * `run` above all, keeps Node's default until it installs its own handlers (a hold for every
 * command once made the daemon ignore SIGTERM while it started). SIGUSR1 and SIGUSR2, which
 * punchgate never uses, are taken here for every command (util/signals.ts).
 */
import { holdEarlyStopSignals, ignoreUnusedSignals } from '../util/signals.js';

/** Global options that take a value (program.ts): their value is not the command. */
const VALUED = new Set(['-c', '--config', '--log-format', '--log-level']);

/** The command word of `args` (process.argv after node and the script), skipping global options. */
export function commandWord(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (VALUED.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

if (commandWord(process.argv.slice(2)) === 'sim') holdEarlyStopSignals();
// Every command, from its first moment: SIGUSR1 would open Node's debugger to every user of the box.
ignoreUnusedSignals();
