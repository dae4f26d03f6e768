import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnDaemon, startStack, statusUrl, TOKEN } from './stack.js';
import { waitFor } from '../helpers/wait.js';
import { parseMetrics } from '../web/helpers.js';

const read = (p: string) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};

/**
 * `punchgate run` without a usable token says so in plain words: nothing was sent, so it is never
 * "the HRMS refused the token" nor a network problem. It keeps collecting meanwhile.
 */
describe('punchgate run without a usable token', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  type Stack = Awaited<ReturnType<typeof startStack>>;
  const setup = async (edit: (config: Record<string, Record<string, unknown>>, stack: Stack) => void) => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    const config = parse(readFileSync(stack.configPath, 'utf8')) as Record<string, Record<string, unknown>>;
    edit(config, stack);
    writeFileSync(stack.configPath, stringify(config));
    stack.terminals[0]!.addPunch({ userId: '1001', logTime: '2026-11-22 08:00:00' });
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    return { stack, d, status: () => read(stack.tmp.path('status.txt')) };
  };

  it('no token configured: says so at start, in the delivery log and in the status; the punch waits', async () => {
    const { stack, d, status } = await setup((c) => delete c.hrms!.tokenFile);
    const expected =
      'no usable HRMS token: no token configured: put the token in hrms.tokenFile or PUNCHGATE_HRMS_TOKEN';
    await waitFor(() => status().includes(expected), 15_000, 'the status alert');
    expect(d.output()).toContain(`${expected}. punchgate runs and keeps every punch`);
    expect(d.output()).toContain(`${expected}. Delivery is paused, punches keep accumulating`);
    expect(d.output() + status()).not.toMatch(/refuse/i);
    expect(status()).toMatch(/pending 1\b/);
    expect(status()).toContain('HRMS: NO TOKEN');
    expect(stack.hrms.requests()).toBe(0);
  });

  it('a token file with two lines is named as such, and a fixed file is picked up without a restart', async () => {
    const { stack, d, status } = await setup((c, s) => {
      c.delivery!.authRetryMs = 300;
      writeFileSync(s.tmp.path('token'), `${TOKEN}\nsomething else\n`);
    });
    const problem = `the token file ${stack.tmp.path('token')} has 2 lines: put the token alone on one line`;
    await waitFor(() => status().includes(`no usable HRMS token: ${problem}`), 15_000, 'the status alert');
    expect(d.output()).toContain(`no usable HRMS token: ${problem}. Delivery is paused`);
    expect(d.output() + status()).not.toMatch(/refuse|network|ECONN|header/i);
    expect(stack.hrms.requests()).toBe(0);
    writeFileSync(stack.tmp.path('token'), `${TOKEN}\n`);
    await waitFor(() => stack.hrms.attendance().length === 1, 15_000, 'the punch delivered with the fixed token');
    expect(d.output()).not.toContain(TOKEN);
  });

  it('an empty token file: /readyz, /metrics, status.json and the page say no usable token, never a refusal', async () => {
    const { stack, d, status } = await setup((_c, s) => writeFileSync(s.tmp.path('token'), ''));
    const problem = `no usable HRMS token: the token file ${stack.tmp.path('token')} is empty`;
    await waitFor(() => status().includes(problem), 15_000, 'the status alert');
    const url = await statusUrl(d);
    const get = async (path: string) => {
      const r = await fetch(url + path);
      return { status: r.status, text: await r.text() };
    };
    // /readyz in the status's words (the same alert line), not "the HRMS refuses the token".
    const ready = await get('readyz');
    expect(ready.status).toBe(503);
    expect(ready.text).toMatch(/^not ready: no usable HRMS token: the token file .* is empty/);
    expect(status()).toContain(ready.text.replace(/^not ready: /, '').trim());
    // The refused gauge (PunchgateTokenRefused) stays 0: no request was sent; the unusable one says it.
    const metrics = parseMetrics((await get('metrics')).text);
    expect(metrics.get('punchgate_hrms_token_refused{sink="hrms"}')).toBe(0);
    expect(metrics.get('punchgate_hrms_token_unusable{sink="hrms"}')).toBe(1);
    const page = (await get('')).text;
    expect(page).toContain('NO TOKEN');
    for (const body of [ready.text, page, (await get('status.json')).text, status()])
      expect(body).not.toMatch(/refuses the token|AUTH FAILED/);
    expect(stack.hrms.requests()).toBe(0);
  });
});
