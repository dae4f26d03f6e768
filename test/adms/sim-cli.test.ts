import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, terminal } from './harness.js';

describe('punchgate sim push-terminal', () => {
  it('pushes its punches to a receiver, applies the fault switches, and prints a summary when stopped', async () => {
    const r = await startReceiver({ terminals: [terminal('lobby', 'CLI0001')] });
    try {
      const child = spawn(
        process.execPath,
        [
          'dist/punchgate.js',
          'sim',
          'push-terminal',
          '--server',
          r.url,
          '--serial',
          'CLI0001',
          '--punches',
          '250',
          '--batch',
          '50',
          '--delay',
          '0.2',
          '--malformed-rate',
          '1',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
      await waitFor(() => r.journal.counts().pending === 250, 20_000, 'punches journalled');
      await waitFor(() => (r.store.pushTerminal('lobby')?.malformed ?? 0) >= 5, 20_000, 'malformed lines counted');
      // The receiver journals a batch before it answers: the simulator (another process, slow on a
      // loaded box) may not have read the last OK yet, and Ctrl-C then would cut that upload.
      await waitFor(() => out.includes('(Stamp=250): OK'), 20_000, 'the last upload answered');
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(out).toContain('push terminal simulator SN=CLI0001 (attendance protocol) pushing to');
      expect(out).toMatch(/uploaded 50 punches \(Stamp=50\): OK:50/);
      expect(out).toMatch(
        /SN=CLI0001: 250 records \(250 passes\), 250 acknowledged, 0 not yet; 5 uploads OK, 0 failed requests, 0 records resent after OK/,
      );
    } finally {
      await r.stop();
    }
  });

  it('speaks Security PUSH with --protocol security: registers, sends rtlog with door events and unset-clock rows', async () => {
    const r = await startReceiver({ terminals: [terminal('gate', 'CLISEC01')] });
    try {
      const child = spawn(
        process.execPath,
        [
          ...['dist/punchgate.js', 'sim', 'push-terminal', '--server', r.url, '--serial', 'CLISEC01'],
          ...['--protocol', 'security', '--punches', '30', '--batch', '10', '--delay', '0.2'],
          ...['--clock-unset', '2', '--non-punch-rate', '0.5', '--no-device-type', '--no-content-type'],
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
      await waitFor(() => r.journal.counts().pending === 30, 20_000, 'passes journalled');
      await waitFor(() => r.journal.counts().quarantined === 2, 20_000, 'unset-clock rows quarantined');
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(out).toContain('push terminal simulator SN=CLISEC01 (Security PUSH) pushing to');
      expect(out).toMatch(/registered \(Security PUSH\), RegistryCode=[0-9a-f]{16}/);
      expect(r.store.registration('gate', 'CLISEC01')).toMatchObject({ protocol: 'security' });
      expect(r.store.users('gate', 'CLISEC01')).toHaveLength(10);
    } finally {
      await r.stop();
    }
  });

  it('refuses a server that is not an http:// URL', async () => {
    const child = spawn(process.execPath, ['dist/punchgate.js', 'sim', 'push-terminal', '--server', 'https://x:8081'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    expect(code).not.toBe(0);
    expect(err).toContain('expected the receiver as http://HOST:PORT');
  });
});
