/**
 * `npm run demo` is the first thing a newcomer runs (README.md): the shipped demo config, on free
 * ports, as a child process of the built CLI. Punches of both simulated terminals reach the
 * simulated HRMS, the status page answers, nothing in the output reads like a fault, and Ctrl-C
 * stops everything with exit 0.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { demoConfigOnFreePorts } from './demo-config.js';
import { withoutBoxStalls } from './fault-lines.js';
import { waitFor } from '../helpers/wait.js';

describe('punchgate demo', () => {
  const tmp = tempDir('punchgate-demo-');
  afterAll(() => tmp.cleanup());

  it('runs the shipped demo: both terminals punch through to the HRMS, the page answers, Ctrl-C ends it with 0', async () => {
    const { config, shipped } = await demoConfigOnFreePorts(tmp.path);
    // The status page as shipped: never the production port 9330 (a real punchgate may hold it).
    expect(shipped.status.listen).toBe('127.0.0.1:0');

    const child = spawn(
      process.execPath,
      ['dist/punchgate.js', 'demo', '--demo-config', config, '--punch-every', '1'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(
        () =>
          /terminal gate-1: received 1 punch in real time/.test(out) &&
          /terminal lobby pushed \d+ punch/.test(out) &&
          /terminal door pushed \d+ punch/.test(out) &&
          /terminal office: \d+ new punch/.test(out) &&
          /terminal side-door: \d+ new punch/.test(out),
        30_000,
        `punches of both terminals (output so far:\n${out.slice(-2000)})`,
      );
      await waitFor(
        () => /delivered \d+ punch(es)? to the HRMS|sent \d+ punch(es)? to the HRMS: [1-9]\d* delivered/.test(out),
        10_000,
        'a delivery',
      );
      // The address it really serves, as the demo prints it.
      const page = /\[demo\s*\] status page: (http:\/\/127\.0\.0\.1:(\d+)\/) /.exec(out);
      expect(page, out.slice(-2000)).not.toBeNull();
      expect(Number(page![2])).not.toBe(9330);
      const res = await fetch(page![1]!);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('gate-1');
      expect(html).toContain('lobby');
      expect(html).toContain('Security PUSH');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    const received =
      /the HRMS simulator received (\d+) punches \(gate-1 (\d+), lobby (\d+), door (\d+), office (\d+), side-door (\d+)\)/.exec(
        out,
      );
    expect(received, out.slice(-2000)).not.toBeNull();
    // Each terminal's punches reached the HRMS, the Security PUSH terminal's too.
    expect(
      received!
        .slice(2)
        .map(Number)
        .every((n) => n >= 1),
    ).toBe(true);
    // Every line of the demo's own says when it happened (the status log's blocks aside).
    const lines = out.split('\n').filter((l) => /\[(demo|daemon|terminal|hrms|push|biotime|dahua)\s*\]/.test(l));
    expect(lines.length).toBeGreaterThan(10);
    for (const l of lines)
      expect(l).toMatch(/^\d{2}:\d{2}:\d{2} \[(demo|daemon|terminal|hrms|push|biotime|dahua)\s*\] \S/);
    // Nothing a newcomer would read as a fault: no refused first call, no error line.
    expect(withoutBoxStalls(out)).not.toMatch(/ECONNREFUSED|failed handshake|\bERROR\b|\bWARN\b/);
  }, 60_000);
});
