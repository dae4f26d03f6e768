/**
 * Memory floors measured in the same run, as context for the absolute RSS targets: an idle
 * bare `node`, and an idle `node` that has loaded punchgate's CLI (every module `punchgate run`
 * loads) but does nothing.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RssSampler, type RssSummary } from './rss.js';
import { sleep } from './timing.js';

const PROGRAM = fileURLToPath(new URL('../../src/cli/program.js', import.meta.url));

async function idleRss(code: string, settleMs = 1500, windowMs = 1500): Promise<RssSummary> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: 'ignore' });
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

export const bareNodeRss = () => idleRss('setInterval(() => {}, 1e6);');

export const punchgateModulesRss = () =>
  idleRss(`const m = await import(${JSON.stringify(new URL(`file://${PROGRAM}`).href)}); m.buildProgram(); setInterval(() => {}, 1e6);`);
