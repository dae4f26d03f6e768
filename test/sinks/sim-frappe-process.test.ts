import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { FrappeSender } from '../../src/sinks/frappe/sender.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('pg-sim-frappe-proc-');
afterAll(() => dir.cleanup());

/**
 * `punchgate sim frappe` as the built CLI in its own process: the sender delivers to it, a
 * second send of the same punches finds them all there (duplicates), SIGTERM stops it with 0.
 */
it('the built sim frappe takes check-ins from the sender and stops on SIGTERM', async () => {
  const csv = dir.path('employees.csv');
  writeFileSync(
    csv,
    'attendance_device_id,employee_name\n' + Array.from({ length: 20 }, (_, i) => `${500 + i},P${i}`).join('\n') + '\n',
  );
  const child = spawn(
    process.execPath,
    [
      'dist/punchgate.js',
      'sim',
      'frappe',
      '--port',
      '0',
      '--key',
      'prockey0001:procsecret0001',
      '--employees',
      csv,
      '--latency',
      '5',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += String(d)));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += String(d);
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error(`sim frappe exited: ${err}`)));
  });
  const sender = new FrappeSender(
    { baseUrl: url, method: 'hrms', employeeFieldname: 'attendance_device_id', concurrency: 4, timeoutMs: 5000 },
    { env: {} },
  );
  try {
    const punches = Array.from({ length: 40 }, (_, i) => ({
      devicelogId: `c-${i}`,
      biometricCode: String(500 + (i % 20)),
      logTime: `2026-11-05 ${i < 20 ? '08' : '17'}:00:${String(i % 20).padStart(2, '0')}`,
      terminal: 'gate',
      device: '',
      timezone: 'UTC',
    }));
    const first = await sender.send(punches, { token: 'prockey0001:procsecret0001' });
    expect(first.kind === 'answered' && first.results.every((r) => r.status)).toBe(true);
    const again = await sender.send(punches, { token: 'prockey0001:procsecret0001' });
    expect(again.kind === 'answered' && again.results.every((r) => !r.status && /^duplicate: /.test(r.message))).toBe(
      true,
    );
    const stats = (await (await fetch(`${url}/__sim/stats`)).json()) as { checkinCalls: number; maxInFlight: number };
    expect(stats.checkinCalls).toBe(80);
    expect(stats.maxInFlight).toBeLessThanOrEqual(4);
    expect(((await (await fetch(`${url}/__sim/checkins`)).json()) as unknown[]).length).toBe(40);
    // An employee added through the admin API as docs/simulators.md shows it (the field beside the
    // name, not under "fields"): found by its code at once (a new-user trial's came out with none).
    const added = await fetch(`${url}/__sim/employees`, {
      method: 'POST',
      body: JSON.stringify({ employee_name: 'New Hire', attendance_device_id: '1005' }),
    });
    expect(((await added.json()) as { fields: Record<string, string> }).fields).toEqual({
      attendance_device_id: '1005',
    });
    const hire = await sender.send([{ ...punches[0]!, devicelogId: 'c-new', biometricCode: '1005' }], {
      token: 'prockey0001:procsecret0001',
    });
    expect(hire.kind === 'answered' && hire.results[0]!.status).toBe(true);
  } finally {
    await sender.close();
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  expect(err).toContain('Frappe simulator stopped');
  expect(err).not.toContain('procsecret0001');
});
