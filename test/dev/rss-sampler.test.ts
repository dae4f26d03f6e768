import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { procMemory, RssSampler } from '../../bench/lib/rss.js';
import { waitFor } from '../helpers/wait.js';

const state = (pid: number) => /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];

/**
 * A node process that lives `ms` and then stays a zombie: its parent shell has become `sleep`,
 * which never reaps it (as a drainer is for a moment between its exit and its parent's wait).
 */
async function shortLivedNode(ms: number): Promise<{ pid: number; parent: ChildProcess }> {
  const parent = spawn(
    'sh',
    ['-c', `"${process.execPath}" -e "setTimeout(() => {}, ${ms})" & echo $!; exec sleep 30`],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    parent.once('error', reject);
  });
  return { pid, parent };
}

describe('the benches’ RSS sampler (bench/lib/rss.ts)', () => {
  let parent: ChildProcess | undefined;
  afterEach(() => {
    parent?.kill('SIGKILL');
    parent = undefined;
  });

  it('reads a live process, and nothing from one that has ended but is not reaped yet', async () => {
    const p = await shortLivedNode(300);
    parent = p.parent;
    // Node is loaded (right after the fork, the child is still a small shell).
    await waitFor(() => (procMemory(p.pid)?.rss ?? 0) > 1024 * 1024, 10_000, 'node to start');
    await waitFor(() => state(p.pid) === 'Z', 10_000, 'the child to end');
    expect(procMemory(p.pid)).toBeNull();
  });

  it('keeps the peak and the high-water mark of a process sampled past its end', async () => {
    const p = await shortLivedNode(400);
    parent = p.parent;
    const sampler = new RssSampler(p.pid, 20).start();
    await waitFor(() => state(p.pid) === 'Z', 10_000, 'the child to end');
    // Samples of the zombie, as the rss bench took at the drainer's exit.
    await new Promise((r) => setTimeout(r, 100));
    const s = sampler.stop();
    expect(s.samples).toBeGreaterThan(2);
    expect(s.peak).toBeGreaterThan(1024 * 1024);
    expect(s.median).toBeGreaterThan(1024 * 1024);
    // Not `>= s.peak`: the kernel raises its mark lazily (at unmaps and at exit), so a sampled VmRSS
    // can stand a few pages above it (CI saw 60 kB); the benches take the larger of the two.
    expect(s.hwm).toBeGreaterThan(1024 * 1024);
    expect(Number.isFinite(s.peakAnon) && Number.isFinite(s.peakFile)).toBe(true);
  });
});
