/**
 * A newcomer's demo on a box where another demo (or any program) holds one of the demo's ports:
 * it printed a bare `listen EADDRINUSE` with exit 1 and then hung, the simulators it had already
 * started still listening. Now: one line naming the simulator, the port and the fix, exit 75,
 * and the process ends. And a copy of the demo config without its demo-token (demo.md's way to
 * move the ports) runs: the throwaway token is made up (it failed with a bare ENOENT).
 */
import { spawn } from 'node:child_process';
import { unlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { writeDemoRunConfig } from '../../src/demo/run-config.js';
import { tempDir } from '../helpers/tmp.js';
import { demoConfigOnFreePorts } from './demo-config.js';

const hold = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve(s));
  });

describe('punchgate demo on a port another program holds', () => {
  // A folder per case: the demo config names its demo-token beside it.
  const dirs: Array<ReturnType<typeof tempDir>> = [];
  const folder = () => dirs[dirs.push(tempDir('punchgate-demo-port-')) - 1]!;
  afterAll(() => dirs.forEach((d) => d.cleanup()));

  for (const taken of ['HRMS simulator', 'Dahua terminal simulator'] as const) {
    it(`names the ${taken}, its port and the fix, exits 75 and does not hang`, async () => {
      const { config, ports } = await demoConfigOnFreePorts(folder().path);
      const port = taken === 'HRMS simulator' ? ports.hrms : ports.dahua;
      const server = await hold(port);
      try {
        const child = spawn(process.execPath, ['dist/punchgate.js', 'demo', '--demo-config', config], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        const code = await new Promise<number | null>((resolve) => {
          const t = setTimeout(() => {
            child.kill('SIGKILL');
            resolve(null);
          }, 10_000);
          child.on('exit', (c) => {
            clearTimeout(t);
            resolve(c);
          });
        });
        expect(code, out).toBe(75);
        expect(out).toContain(
          `the demo's ${taken} cannot listen on 127.0.0.1:${port}: another program holds that port`,
        );
        expect(out).toContain(`ss -ltnp 'sport = :${port}'`);
        expect(out).toContain(`copy ${config}`);
        expect(out).toContain('--demo-config');
        expect(out).not.toContain('EADDRINUSE');
      } finally {
        server.close();
      }
    });
  }

  it('runs a copy of the demo config without its demo-token: the throwaway token is made up', async () => {
    const dir = folder();
    const { config } = await demoConfigOnFreePorts(dir.path);
    unlinkSync(dir.path('demo-token'));
    const run = writeDemoRunConfig(config, 'seed', ['zk']);
    expect(run.secrets.seedToken).toMatch(/^[0-9a-f]{24}$/);
  });
});
