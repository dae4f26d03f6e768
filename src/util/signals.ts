/**
 * The one place punchgate listens to process signals. SIGTERM (systemd, docker stop) and
 * SIGINT (Ctrl-C) ask to stop; a second one asks to hurry. SIGHUP asks to reload (only where
 * a handler is given; otherwise Node's default applies). SIGUSR1 and SIGUSR2 are taken and ignored.
 */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
/**
 * Signals punchgate has no use for, taken so that Node's defaults do not apply: SIGUSR1 opened
 * Node's debugger on 127.0.0.1:9229, where any user of the box could run code inside the daemon
 * (its HRMS token, the comm keys); SIGUSR2 ended the daemon at once, without its clean stop (an
 * adversarial trial sent them as a "reopen logs" or "dump" habit of other daemons).
 */
const UNUSED_SIGNALS: readonly NodeJS.Signals[] = ['SIGUSR1', 'SIGUSR2'];

export interface SignalHandlers {
  /** A stop signal; `count` is 1 for the first, 2 and more when the operator insists. */
  stop(signal: NodeJS.Signals, count: number): void;
  /** SIGHUP. */
  reload?(): void;
  /** SIGUSR1 or SIGUSR2: taken and ignored (UNUSED_SIGNALS); this says so where there is a log. */
  unused?(signal: NodeJS.Signals): void;
}

/**
 * Stop signals that came while a simulator was still loading, before it listened (a simulator
 * sent SIGTERM in its first second died of it, exit 143, where a clean stop is 0). Held only for
 * `punchgate sim ...`, decided from the command line before the rest loads (cli/early-signals.ts):
 * never for `run` or any other command, which end on an early signal as Node's default does.
 * Module state, not a singleton by choice: a process has one set of signal dispositions.
 */
let early: { pending: NodeJS.Signals[]; listener: (s: NodeJS.Signals) => void } | undefined;

/**
 * A held signal not taken by then ends the process as Node's default would: a simulator that
 * fails or hangs before it listens must never make a stop signal vanish.
 */
const EARLY_HOLD_MS = 10_000;

/**
 * Holds stop signals until the first handleSignals takes them. A second one (the operator
 * insists), or one held longer than EARLY_HOLD_MS, ends the process by that signal at once.
 */
export function holdEarlyStopSignals(holdMs = EARLY_HOLD_MS): void {
  if (early) return;
  const pending: NodeJS.Signals[] = [];
  const release = (s: NodeJS.Signals) => {
    if (!early) return;
    takeEarly();
    process.kill(process.pid, s);
  };
  early = {
    pending,
    listener: (s) => {
      pending.push(s);
      if (pending.length > 1) release(s);
      else setTimeout(release, holdMs, s).unref();
    },
  };
  for (const s of STOP_SIGNALS) process.on(s, early.listener);
}

function takeEarly(): NodeJS.Signals[] {
  if (!early) return [];
  for (const s of STOP_SIGNALS) process.off(s, early.listener);
  const { pending } = early;
  early = undefined;
  return pending;
}

let unusedTaken = false;

/**
 * Takes SIGUSR1 and SIGUSR2 for the whole life of the process, from its first moment (main.ts,
 * through early-signals.ts): a daemon upgrading its journal for minutes, or any other command,
 * never opens Node's debugger nor dies of them. handleSignals adds what to say about them.
 */
export function ignoreUnusedSignals(): void {
  if (unusedTaken) return;
  unusedTaken = true;
  for (const s of UNUSED_SIGNALS) process.on(s, () => undefined);
}

/** Routes the process's signals to `handlers` until the returned function is called. */
export function handleSignals(handlers: SignalHandlers): () => void {
  let count = 0;
  const onStop = (signal: NodeJS.Signals) => handlers.stop(signal, ++count);
  const onHup = () => handlers.reload?.();
  const onUnused = (signal: NodeJS.Signals) => handlers.unused?.(signal);
  for (const s of STOP_SIGNALS) process.on(s, onStop);
  for (const s of UNUSED_SIGNALS) process.on(s, onUnused);
  if (handlers.reload) process.on('SIGHUP', onHup);
  // Stop signals held while a simulator loaded are its own, in order, now that it listens.
  for (const s of takeEarly()) process.nextTick(onStop, s);
  return () => {
    for (const s of STOP_SIGNALS) process.off(s, onStop);
    for (const s of UNUSED_SIGNALS) process.off(s, onUnused);
    process.off('SIGHUP', onHup);
  };
}

/** An AbortSignal that aborts at the first stop signal (one-shot commands, simulators), and its dispose. */
export function abortOnStopSignal(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const dispose = handleSignals({ stop: () => controller.abort() });
  return { signal: controller.signal, dispose };
}

/** Resolves when `signal` aborts (at once if it already has). */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
