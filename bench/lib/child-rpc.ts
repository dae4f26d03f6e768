/**
 * Child side of bench/lib/child.ts: announce `ready`, answer requests by type, and exit
 * when the parent goes away (its IPC channel closes).
 */
export type Handler = (msg: Record<string, unknown>) => unknown;

export function serve(handlers: Record<string, Handler>, onExit?: () => Promise<void> | void): void {
  if (!process.send) throw new Error('this script runs as a child of the bench (node dist/bench/main.js)');
  process.on('message', (m: unknown) => {
    const msg = m as { id?: unknown; type?: unknown } & Record<string, unknown>;
    if (typeof msg.id !== 'number' || typeof msg.type !== 'string') return;
    const id = msg.id;
    const handler = handlers[msg.type];
    const reply = (r: object) => process.connected && process.send?.({ id, ...r });
    if (!handler) {
      reply({ ok: false, error: `unknown request ${msg.type}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(msg))
      .then(
        (result) => reply({ ok: true, result: result ?? null }),
        (e: unknown) => reply({ ok: false, error: e instanceof Error ? e.message : String(e) }),
      );
  });
  let exiting = false;
  const leave = () => {
    if (exiting) return;
    exiting = true;
    Promise.resolve(onExit?.()).finally(() => process.exit(0));
  };
  process.on('disconnect', leave);
  process.on('SIGTERM', leave);
  process.on('SIGINT', leave);
}

export function announceReady(info: unknown): void {
  process.send?.({ type: 'ready', info });
}

export function announceFailure(e: unknown): void {
  process.send?.({ type: 'failed', error: e instanceof Error ? e.message : String(e) });
}

/** The JSON object given as the child's first argument. */
export function childArgs<T>(): T {
  const raw = process.argv[2];
  return (raw ? JSON.parse(raw) : {}) as T;
}
