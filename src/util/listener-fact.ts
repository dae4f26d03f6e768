import type { FileHandleShortage } from './file-limit.js';

/**
 * One port the daemon listens on (the push terminal receiver, the status page) and whether it
 * does now. Both retry a port they cannot take; while they cannot, the status, the page,
 * `/metrics` and `/readyz` say so from this (src/status/listeners.ts).
 */
export interface ListenerFact {
  /** `push`: the push terminal receiver (`adms.listen`); `status`: the status page (`status.listen`). */
  listener: 'push' | 'status';
  /** The configured HOST:PORT. */
  listen: string;
  up: boolean;
  /** While it cannot listen: since when (epoch ms), the error code (EADDRINUSE, EACCES, ...), its next try. */
  downSince: number | null;
  code: string | null;
  nextTryAt: number | null;
  /** The push receiver held below adms.maxConnections by the process's file handle limit. */
  fileHandles?: FileHandleShortage;
}

/** What a listener remembers of its failing tries: the first failure of the run, the last code, the next try. */
export class ListenerTrouble {
  private down: { since: number; code: string | null; nextTryAt: number } | undefined;

  failed(now: number, code: string | null, retryInMs: number): void {
    this.down = { since: this.down?.since ?? now, code, nextTryAt: now + retryInMs };
  }

  /** It listens now: true when it did not before (the status should say so at once). */
  listening(): boolean {
    const was = this.down !== undefined;
    this.down = undefined;
    return was;
  }

  /** It failed its last try (and has not listened since). */
  get failing(): boolean {
    return this.down !== undefined;
  }

  fact(listener: ListenerFact['listener'], listen: string, up: boolean): ListenerFact {
    const d = up ? undefined : this.down;
    return {
      listener,
      listen,
      up,
      downSince: d?.since ?? null,
      code: d?.code ?? null,
      nextTryAt: d?.nextTryAt ?? null,
    };
  }
}
