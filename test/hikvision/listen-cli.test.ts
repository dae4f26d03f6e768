import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Journal } from '../../src/journal/journal.js';
import { startHikvisionSim, type HikvisionSim } from '../../src/sim/hikvision/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { PASSWORD } from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A config with terminal `reception` at the simulator, and the receiver at `listen` (none: no adms). */
function configFor(sim: HikvisionSim, listen: string | undefined, extra: Record<string, unknown> = {}) {
  const tmp = tempDir('punchgate-hik-listen-cli-');
  cleanups.push(() => tmp.cleanup());
  writeFileSync(tmp.path('token'), 'tok\n');
  writeFileSync(tmp.path('reception.pass'), PASSWORD + '\n');
  writeFileSync(
    tmp.path('pg.yaml'),
    stringify({
      site: 's',
      journal: { path: 'journal.db' },
      hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' },
      ...(listen ? { adms: { listen } } : {}),
      terminals: [
        {
          name: 'reception',
          kind: 'hikvision',
          url: sim.url,
          passwordFile: 'reception.pass',
          timeoutMs: 5000,
          ...extra,
        },
        { name: 'old-zk', kind: 'zk', host: '127.0.0.1' },
      ],
    }),
  );
  Journal.open({ path: tmp.path('journal.db'), site: 's', mode: 'owner' }).close();
  return tmp.path('pg.yaml');
}

describe('punchgate terminals listen', () => {
  it('names what is missing: a hikvision terminal, the receiver, the box address', async () => {
    const sim = await startHikvisionSim({ password: PASSWORD });
    cleanups.push(() => sim.stop());
    const noAdms = configFor(sim, undefined);
    const r1 = await runPunchgate(['--config', noAdms, 'terminals', 'listen', 'reception']);
    expect(r1.status).toBe(78);
    expect(r1.stderr).toMatch(/set adms\.listen/);
    const wildcard = configFor(sim, '0.0.0.0:8081', { listen: true });
    const r2 = await runPunchgate(['--config', wildcard, 'terminals', 'listen', 'reception']);
    expect(r2.status).toBe(78);
    expect(r2.stderr).toMatch(/--address 192\.168\.1\.10 \(adms\.listen is 0\.0\.0\.0:8081\)/);
    const r3 = await runPunchgate(['--config', wildcard, 'terminals', 'listen', 'old-zk', '--address', '10.0.0.2']);
    expect(r3.status).toBe(78);
    expect(r3.stderr).toMatch(/no hikvision terminal named "old-zk"/);
    // Nothing was written to the device by any of these.
    expect(sim.requests().filter((r) => r.method === 'PUT')).toEqual([]);
  });

  it('refuses to point a terminal on the network at a loopback address, and says what to set', async () => {
    const sim = await startHikvisionSim({ password: PASSWORD });
    cleanups.push(() => sim.stop());
    // A terminal elsewhere (TEST-NET address: never contacted, the command stops before).
    const loopback = configFor(sim, '127.0.0.1:8081', { url: 'http://192.0.2.64', listen: true });
    for (const extra of [['--print'], []]) {
      const r = await runPunchgate(['--config', loopback, 'terminals', 'listen', 'reception', ...extra]);
      expect(r.status).toBe(78);
      expect(r.stderr).toMatch(
        /127\.0\.0\.1 is this box's loopback address: terminal reception \(192\.0\.2\.64\) cannot reach it\. Set adms\.listen to 0\.0\.0\.0:8081 .*--address 192\.168\.1\.10/,
      );
      expect(r.stdout).toBe('');
    }
    const wildcard = configFor(sim, '0.0.0.0:8081', { url: 'http://192.0.2.64', listen: true });
    const r = await runPunchgate([
      '--config',
      wildcard,
      'terminals',
      'listen',
      'reception',
      '--print',
      '--address',
      '::1',
    ]);
    expect(r.status).toBe(78);
    expect(r.stderr).toMatch(/::1 is this box's loopback address: .*Run again with the address the terminal reaches/);
  });

  it('keeps the other hosts of the terminal, says which one it replaced, and reminds to set listen: true', async () => {
    const sim = await startHikvisionSim({ password: PASSWORD, httpHost: 'http://10.0.0.9:8080/other' });
    cleanups.push(() => sim.stop());
    const cfg = configFor(sim, '127.0.0.1:8081');
    const r = await runPunchgate(['--config', cfg, 'terminals', 'listen', 'reception']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/set listen: true for reception/);
    expect(r.stdout).toMatch(/replaced: http:\/\/10\.0\.0\.9:8080\/other/);
    expect(r.stdout).toMatch(
      /now posts its events to http:\/\/127\.0\.0\.1:8081\/listen\/hikvision\/reception \(JSON, slot 1\)/,
    );
    expect(sim.httpHosts()).toMatchObject([
      { id: '1', url: '/listen/hikvision/reception', ipAddress: '127.0.0.1', portNo: 8081 },
    ]);
    // The simulator is on this box: no firewall to open, and no "open port ... to 127.0.0.1".
    expect(r.stdout).not.toMatch(/open port/);
    expect(r.stdout).toMatch(/punchgate check says when it has posted/);
    // Again: the same slot, nothing replaced.
    const again = await runPunchgate(['--config', cfg, 'terminals', 'listen', 'reception']);
    expect(again.status).toBe(0);
    expect(again.stdout).not.toMatch(/replaced/);
    expect(sim.httpHosts()).toHaveLength(1);
  });
});
