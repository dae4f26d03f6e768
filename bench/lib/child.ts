/**
 * Parent side of the bench's child processes (simulators, clients, the drain under test):
 * fork a compiled bench script with an IPC channel, wait for its `ready` message, then
 * call it with request/response messages. Children exit when the channel closes, so a
 * crashed bench never leaves a simulator behind.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ChildOptions {
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Extra node flags (e.g. --expose-gc). */
  execArgv?: string[];
  /** How long to wait for `ready` (default 60 s). */
  readyTimeoutMs?: number;
  /** Forward the child's stdout/stderr (default: stderr only). */
  stdout?: boolean;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

export class BenchChild<Ready = unknown> {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly exited: Promise<ChildExit>;
  private exit: ChildExit | undefined;

  private constructor(
    readonly name: string,
    readonly proc: ChildProcess,
    public ready: Ready,
  ) {
    this.exited = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        this.exit = { code, signal };
        for (const w of this.waiting.values())
          w.reject(new Error(`${name} exited (code ${code}, signal ${signal}) before answering`));
        this.waiting.clear();
        resolve(this.exit);
      });
    });
    proc.on('message', (m: unknown) => {
      const r = m as Partial<Reply>;
      if (typeof r.id !== 'number') return;
      const w = this.waiting.get(r.id);
      if (!w) return;
      this.waiting.delete(r.id);
      if (r.ok) w.resolve((r as { result: unknown }).result);
      else w.reject(new Error(`${name}: ${(r as { error: string }).error}`));
    });
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  /** Forks `dist/bench/<script>.js` and waits for its `{type: 'ready'}` message. */
  static async start<R>(script: string, opts: ChildOptions = {}): Promise<BenchChild<R>> {
    const file = fileURLToPath(new URL(`../${script}.js`, import.meta.url));
    const proc = fork(file, opts.args ?? [], {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      execArgv: opts.execArgv ?? [],
      stdio: ['ignore', opts.stdout ? 'inherit' : 'ignore', 'inherit', 'ipc'],
    });
    const ready = await new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`${script}: not ready within ${opts.readyTimeoutMs ?? 60_000} ms`));
      }, opts.readyTimeoutMs ?? 60_000);
      const onMessage = (m: unknown) => {
        const msg = m as { type?: string; info?: R; error?: string };
        if (msg.type === 'ready') {
          done();
          resolve(msg.info as R);
        } else if (msg.type === 'failed') {
          done();
          reject(new Error(`${script}: ${msg.error ?? 'failed to start'}`));
        }
      };
      const onExit = (code: number | null, signal: string | null) => {
        done();
        reject(new Error(`${script} exited before ready (code ${code}, signal ${signal})`));
      };
      const done = () => {
        clearTimeout(timer);
        proc.off('message', onMessage);
        proc.off('exit', onExit);
      };
      proc.on('message', onMessage);
      proc.once('exit', onExit);
    });
    return new BenchChild<R>(script, proc, ready);
  }

  /** Sends a request; resolves with the child's result. */
  call<T = unknown>(type: string, body: Record<string, unknown> = {}, timeoutMs = 600_000): Promise<T> {
    if (this.exit) return Promise.reject(new Error(`${this.name} has exited`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`${this.name}: no answer to ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v as T)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.proc.send({ id, type, ...body });
    });
  }

  /** Asks the child to stop (closes its channel, then SIGTERM, then SIGKILL) and waits for it. */
  async stop(graceMs = 5000): Promise<ChildExit> {
    if (this.exit) return this.exit;
    if (this.proc.connected) this.proc.disconnect();
    const t1 = setTimeout(() => this.proc.kill('SIGTERM'), graceMs);
    const t2 = setTimeout(() => this.proc.kill('SIGKILL'), graceMs * 2);
    const r = await this.exited;
    clearTimeout(t1);
    clearTimeout(t2);
    return r;
  }
}
