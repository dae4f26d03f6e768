/**
 * The one place punchgate listens to process signals. SIGTERM (systemd, docker stop) and
 * SIGINT (Ctrl-C) ask to stop; a second one asks to hurry. SIGHUP asks to reload (only where
 * a handler is given; otherwise Node's default applies).
 */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

export interface SignalHandlers {
  /** A stop signal; `count` is 1 for the first, 2 and more when the operator insists. */
  stop(signal: NodeJS.Signals, count: number): void;
  /** SIGHUP. */
  reload?(): void;
}

/**
 * Stop signals that came while punchgate was still loading, before the command that will handle
 * them listened (found by a trial: a simulator sent SIGTERM in its first second died of it, exit
 * 143, where a clean stop is 0). The process's signals are one per process, so this is too: held
 * from main.ts's first module (holdEarlyStopSignals), handed to the first handleSignals, or let act
 * as Node's default would (releaseEarlyStopSignals) by a command that handles none.
 */
interface Held {
  pending: NodeJS.Signals[];
  listener: (s: NodeJS.Signals) => void;
}
let early: Held | undefined;

/** Holds stop signals until a command handles them or lets them go. */
export function holdEarlyStopSignals(): void {
  if (early) return;
  const pending: NodeJS.Signals[] = [];
  const held: Held = { pending, listener: (s: NodeJS.Signals) => void pending.push(s) };
  early = held;
  for (const s of STOP_SIGNALS) process.on(s, held.listener);
}

/** Stops holding; a stop signal held meanwhile now ends the process as it would have (128 + signal). */
export function releaseEarlyStopSignals(): void {
  const held = takeEarly();
  if (held[0]) process.kill(process.pid, held[0]);
}

function takeEarly(): NodeJS.Signals[] {
  if (!early) return [];
  for (const s of STOP_SIGNALS) process.off(s, early.listener);
  const { pending } = early;
  early = undefined;
  return pending;
}

/** Routes the process's signals to `handlers` until the returned function is called. */
export function handleSignals(handlers: SignalHandlers): () => void {
  let count = 0;
  const onStop = (signal: NodeJS.Signals) => handlers.stop(signal, ++count);
  const onHup = () => handlers.reload?.();
  for (const s of STOP_SIGNALS) process.on(s, onStop);
  if (handlers.reload) process.on('SIGHUP', onHup);
  // Signals that came before anyone listened are this handler's, in order, once it is in place.
  for (const s of takeEarly()) process.nextTick(onStop, s);
  return () => {
    for (const s of STOP_SIGNALS) process.off(s, onStop);
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
