import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Which thread of `punchgate run` syncs the journal's write-ahead log, read from strace: the
 * daemon runs under `walSyncTracer(file)` (spawnDaemon's `under`), and `walSyncsSince` splits the
 * WAL's syncs made after a point of the trace into those of the main thread (the event loop) and
 * the others (libuv's pool, the checkpoint thread).
 */
export function walSyncTracer(file: string): string[] {
  return ['strace', '-f', '-y', '-qq', '-e', 'trace=execve,fsync,fdatasync', '-o', file];
}

/** The daemon's main thread: the process strace started (its execve line names it); 0 before it did. */
export function tracedMainPid(file: string): number {
  return Number(/^(\d+)\s+execve\(/m.exec(readFileSync(file, 'utf8'))?.[1] ?? 0);
}

/** Where the trace ends now (a point `walSyncsSince` counts from). */
export const traceLength = (file: string): number => readFileSync(file, 'utf8').length;

/** The syncs of `journal.db-wal` in the trace from `from` on (`tid fsync(fd</path>) = 0` lines), on the main thread and off it. */
export function walSyncsSince(
  file: string,
  from: number,
  mainPid: number,
): { onLoop: number[]; offLoop: number[]; all: { tid: number; path: string }[] } {
  const all: { tid: number; path: string }[] = [];
  for (const m of readFileSync(file, 'utf8')
    .slice(from)
    .matchAll(/^(\d+)\s+f(?:data)?sync\(\d+<([^>]*)>\)\s+=\s+0/gm))
    if (m[2]!.endsWith('journal.db-wal')) all.push({ tid: Number(m[1]), path: m[2]! });
  return {
    onLoop: all.filter((s) => s.tid === mainPid).map((s) => s.tid),
    offLoop: all.filter((s) => s.tid !== mainPid).map((s) => s.tid),
    all,
  };
}

/**
 * Ends a daemon under strace that is still running (a test's cleanup): the traced node process
 * (`mainPid`) first, as a SIGKILL of strace itself would leave it running, then strace.
 */
export async function killTraced(d: { child: ChildProcess; exited: Promise<unknown> }, mainPid: number): Promise<void> {
  if (d.child.exitCode !== null) return;
  if (mainPid > 0) process.kill(mainPid, 'SIGKILL');
  d.child.kill('SIGKILL');
  await d.exited;
}
