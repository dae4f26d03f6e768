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

/** Routes the process's signals to `handlers` until the returned function is called. */
export function handleSignals(handlers: SignalHandlers): () => void {
  let count = 0;
  const onStop = (signal: NodeJS.Signals) => handlers.stop(signal, ++count);
  const onHup = () => handlers.reload?.();
  for (const s of STOP_SIGNALS) process.on(s, onStop);
  if (handlers.reload) process.on('SIGHUP', onHup);
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
