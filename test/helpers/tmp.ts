import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(prefix = 'punchgate-'): { dir: string; path: (name: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, path: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A clock the test moves by hand: `advance` and `set` move time (both the wall clock and the
 * monotonic one), `step` moves the wall clock only, as an admin's `date -s` or NTP does.
 */
export function fakeClock(start = Date.UTC(2026, 10, 22, 12, 0, 0)): {
  now: () => number;
  elapsed: () => number;
  advance: (ms: number) => void;
  set: (ms: number) => void;
  step: (ms: number) => void;
} {
  let t = start;
  let mono = start;
  return {
    now: () => t,
    elapsed: () => mono,
    advance: (ms) => void ((t += ms), (mono += ms)),
    set: (ms) => void ((mono += ms - t), (t = ms)),
    step: (ms) => void (t += ms),
  };
}
