import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { tempDir } from '../helpers/tmp.js';

/** `punchgate flush` delivers to every sink (or one, `--sink`), each from its own queue: the built CLI, two simulators. */
describe('flush per sink', () => {
  let tmp: ReturnType<typeof tempDir>;
  let a: HrmsSim;
  let b: HrmsSim;
  /** The config: the seed HRMS a and sink b, `bExtra` added to b's keys. */
  const writeConfig = (bExtra = '') =>
    writeFileSync(
      tmp.path('p.yaml'),
      `site: plant-f
journal:
  path: j.db
hrms:
  baseUrl: ${a.url}
  tokenFile: a-token
sinks:
  - name: b
    kind: hrms
    baseUrl: ${b.url}
    tokenFile: b-token
${bExtra}`,
    );
  beforeEach(async () => {
    tmp = tempDir();
    a = await startHrmsSim({ tokens: ['tok-a'] });
    b = await startHrmsSim({ tokens: ['tok-b'] });
    writeFileSync(tmp.path('a-token'), 'tok-a\n');
    writeFileSync(tmp.path('b-token'), 'tok-b\n');
    writeConfig();
    const j = Journal.open({ path: tmp.path('j.db'), site: 'plant-f', mode: 'owner' });
    j.useSinks({ defaultSink: 'hrms', others: ['b'] });
    j.ingest(
      Array.from({ length: 12 }, (_, i) => ({
        terminal: 'gate-1',
        biometricCode: String(4000 + i),
        logTime: `2026-11-23 05:${String(i).padStart(2, '0')}:00`,
      })),
    );
    j.close();
  });
  afterEach(async () => {
    await a.stop();
    await b.stop();
    tmp.cleanup();
  });

  const flush = (...args: string[]) => {
    const child = spawn(process.execPath, ['dist/punchgate.js', '--config', tmp.path('p.yaml'), 'flush', ...args], {
      env: { ...process.env, PUNCHGATE_HRMS_TOKEN: '' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    return new Promise<{ code: number | null; out: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, out })),
    );
  };

  it('--sink b delivers to b only; then flush delivers the rest to the default sink; each punch once at each', async () => {
    const one = await flush('--sink', 'b', '--max-wait', '5');
    expect(one.code, one.out).toBe(0);
    expect(one.out).toContain('flush (sink b): 12 delivered');
    expect(b.attendance()).toHaveLength(12);
    expect(a.requests()).toBe(0);
    const all = await flush('--max-wait', '5');
    expect(all.code, all.out).toBe(0);
    expect(all.out).toContain('flush: 12 delivered');
    expect(all.out).toContain('flush (sink b): 0 delivered');
    expect(a.attendance()).toHaveLength(12);
    expect(b.attendance()).toHaveLength(12);
    expect(b.received()).toHaveLength(12);
  });

  it('a sink that is down leaves the other delivered and says so, exit 75', async () => {
    b.setFaults({ errorRate: 1 });
    const r = await flush('--max-wait', '0');
    expect(r.code, r.out).toBe(75);
    expect(a.attendance()).toHaveLength(12);
    expect(b.attendance()).toHaveLength(0);
    expect(r.out).toMatch(/sink b: HRMS delivery to \S+: not reachable within --max-wait/);
    expect(r.out).not.toContain('tok-b');
  });

  it('a sink that cannot be built (its caFile missing) leaves the other delivered, names the key and its fix, exit 75', async () => {
    writeConfig('    caFile: missing-ca.pem\n');
    const r = await flush('--max-wait', '5');
    expect(r.code, r.out).toBe(75);
    expect(a.attendance()).toHaveLength(12);
    expect(b.requests()).toBe(0);
    expect(r.out).toMatch(
      /sink b: sinks\[b\]\.caFile: \S*missing-ca\.pem does not exist: put the CA certificate \(PEM\) there, or remove caFile/,
    );
  });

  it('punchgate check says each sink: reached and its credential taken, or refused, with the files to fix', async () => {
    const run = async () => {
      const child = spawn(process.execPath, ['dist/punchgate.js', '--config', tmp.path('p.yaml'), 'check', '--json'], {
        env: { ...process.env, PUNCHGATE_HRMS_TOKEN: '' },
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await new Promise((resolve) => child.on('close', resolve));
      return (JSON.parse(out) as { checks: { name: string; status: string; detail: string; fix?: string }[] }).checks;
    };
    const ok = await run();
    expect(ok.find((c) => c.name === 'hrms')?.status).toBe('pass');
    expect(ok.find((c) => c.name === 'sink b')).toMatchObject({ status: 'pass' });
    writeFileSync(tmp.path('b-token'), 'wrong-token\n');
    const refused = (await run()).find((c) => c.name === 'sink b');
    expect(refused?.status).toBe('fail');
    expect(refused?.detail).toContain('refused the credential');
    expect(refused?.fix).toContain(tmp.path('b-token'));
    expect(b.attendance()).toHaveLength(0);
  });
});
