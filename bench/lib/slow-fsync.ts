/**
 * BENCH_SLOW_FSYNC_MS=n: every disk sync of the bench daemon takes n ms longer, as on an SD card
 * or a cheap eMMC (5 to 50 ms a sync, against well under a millisecond on this machine's disk).
 * A shim of two functions (fsync, fdatasync: sleep, then the real call), built with the
 * machine's C compiler and preloaded into the daemon alone (LD_PRELOAD), not into the bench or
 * its simulators. It shows what waits for the disk on the event loop and what does not.
 * With `whileFile`, the syncs are slow only while that file exists: a test lets the daemon start
 * at the machine's pace (its start makes a few dozen syncs, half a minute at 600 ms each) and
 * makes the disk slow before what it measures.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SHIM = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static void slow(void) {
  const char *when = getenv("SLOW_FSYNC_WHILE");
  if (when && *when && access(when, F_OK) != 0) return;
  const char *v = getenv("SLOW_FSYNC_MS");
  long ms = v ? atol(v) : 0;
  struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&t, NULL);
}
int fsync(int fd) { static int (*real)(int); if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync"); slow(); return real(fd); }
int fdatasync(int fd) { static int (*real)(int); if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync"); slow(); return real(fd); }
`;

/**
 * The daemon's environment for BENCH_SLOW_FSYNC_MS (none when it is unset), the shim built in
 * `dir`; with `whileFile`, slow only while that file exists.
 */
export function slowFsyncEnv(
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
  whileFile?: string,
): Record<string, string> {
  const raw = env.BENCH_SLOW_FSYNC_MS;
  if (raw === undefined || raw.trim() === '') return {};
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`BENCH_SLOW_FSYNC_MS must be a whole number of ms, got ${raw}`);
  const source = join(dir, 'slow-fsync.c');
  const shim = join(dir, 'slow-fsync.so');
  writeFileSync(source, SHIM);
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', shim, source, '-ldl']);
  return {
    LD_PRELOAD: shim,
    SLOW_FSYNC_MS: String(ms),
    ...(whileFile === undefined ? {} : { SLOW_FSYNC_WHILE: whileFile }),
  };
}
