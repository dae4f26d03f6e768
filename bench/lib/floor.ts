/**
 * Memory floors measured in the same run, as context for the absolute RSS targets: an idle
 * bare `node` (no code loaded), without and with the systemd unit's environment.
 */
import { spawn } from 'node:child_process';
import { unitEnv } from './daemon.js';
import { RssSampler, type RssSummary } from './rss.js';
import { sleep } from './timing.js';

async function idleRss(nodeOptions: string, settleMs = 1500, windowMs = 1500): Promise<RssSummary> {
  const env = nodeOptions ? unitEnv(nodeOptions) : { ...process.env, NODE_OPTIONS: '' };
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6);'], { stdio: 'ignore', env });
  try {
    await sleep(settleMs);
    if (child.exitCode !== null) throw new Error(`floor process exited early (code ${child.exitCode})`);
    const sampler = new RssSampler(child.pid!, 100).start();
    await sleep(windowMs);
    return sampler.stop();
  } finally {
    child.kill('SIGKILL');
  }
}

export const bareNodeRss = (nodeOptions = '') => idleRss(nodeOptions);
