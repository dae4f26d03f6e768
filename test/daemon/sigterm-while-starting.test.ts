import { afterEach, describe, expect, it } from 'vitest';
import { spawnDaemon, startStack } from './stack.js';

/**
 * A stop asked while `punchgate run` is still starting (systemd stopping a service it just
 * started, a test ending at once) ends it: never a daemon that logs "running" and then ignores
 * every SIGTERM (a change holding early signals for the simulators did that to the daemon; found
 * by the CI rehearsal on Node 24). Each moment of the start is hit by sending at a spread of delays.
 */
const DELAYS_MS = [0, 150, 300, 450, 600, 900];

describe('SIGTERM while the daemon starts', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('ends it at every moment of its start, within seconds', async () => {
    const stack = await startStack({ terminals: 0 });
    cleanups.push(() => stack.stop());
    for (const delay of DELAYS_MS) {
      const d = spawnDaemon(stack.configPath);
      cleanups.push(() => d.child.exitCode === null && d.child.signalCode === null && d.child.kill('SIGKILL'));
      await new Promise((r) => setTimeout(r, delay));
      d.child.kill('SIGTERM');
      const ended = await Promise.race([
        d.exited,
        new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10_000).unref()),
      ]);
      expect(ended, `SIGTERM ${delay} ms after the start\n${d.output().slice(-1500)}`).not.toBe('hung');
      // Killed by the signal before it listened, or a clean stop (0) after.
      if (ended !== 'hung') expect(ended.signal === 'SIGTERM' || ended.code === 0, JSON.stringify(ended)).toBe(true);
    }
  }, 90_000);
});
