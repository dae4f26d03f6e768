import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';
import { tempDir } from '../helpers/tmp.js';

const base = { site: 'plant-a', journal: { path: 'j.db' }, hrms: { baseUrl: 'https://hr.example.com' } };

function problems(status: unknown): string[] {
  try {
    parseConfig({ ...base, status }, '/etc/punchgate');
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
}

describe('status.listen, status.authTokenFile, status.allowUnauthenticated', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('punchgate-webcfg-')));
  afterEach(() => tmp.cleanup());

  it('default: on, loopback only, no token', () => {
    const c = parseConfig(base, '/etc/punchgate');
    expect(c.status).toMatchObject({ listen: '127.0.0.1:9330', allowUnauthenticated: false, refreshSeconds: 10 });
    expect(c.status.authTokenFile).toBeUndefined();
  });

  it('accepts loopback addresses and false without a token', () => {
    for (const listen of ['127.0.0.1:9330', '127.0.0.2:80', 'localhost:9330', '[::1]:9330', '127.0.0.1:0', false]) {
      expect(problems({ listen }), String(listen)).toEqual([]);
    }
  });

  it('refuses listening beyond loopback without a token or an explicit allowUnauthenticated', () => {
    for (const listen of ['0.0.0.0:9330', '[::]:9330', '192.168.1.10:9330', '[::ffff:127.0.0.1]:9330']) {
      expect(problems({ listen }), listen).toEqual([
        `status.listen: ${listen} can be reached from other machines: set status.authTokenFile (a token that the browser or Prometheus sends as bearer token or basic-auth password), or status.allowUnauthenticated: true on a trusted network`,
      ]);
      expect(problems({ listen, authTokenFile: '/etc/punchgate/status-token' }), listen).toEqual([]);
      expect(problems({ listen, allowUnauthenticated: true }), listen).toEqual([]);
    }
  });

  it('says what a listen address must look like', () => {
    const format = 'must be HOST:PORT such as 127.0.0.1:9330, 0.0.0.0:9330 or [::]:9330, or false';
    expect(problems({ listen: '9330' })).toEqual([`status.listen: ${format}`]);
    expect(problems({ listen: true })).toEqual([`status.listen: ${format}`]);
    expect(problems({ listen: 'status.example.com:9330' })).toEqual([
      `status.listen: "status.example.com" is not an IP address: ${format}`,
    ]);
    expect(problems({ listen: '127.0.0.1:70000' })).toEqual(['status.listen: port 70000 is out of range (0-65535)']);
    expect(problems({ listen: '[::1:9330' })).toEqual([`status.listen: ${format}`]);
    expect(problems({ refreshSeconds: 0 })).toEqual(['status.refreshSeconds: Too small: expected number to be >=1']);
    expect(problems({ listn: '127.0.0.1:1' })).toEqual(['status: unknown key "listn"']);
  });

  it('resolves authTokenFile against the config folder', () => {
    const c = parseConfig({ ...base, status: { authTokenFile: 'status-token' } }, '/etc/punchgate');
    expect(c.status.authTokenFile).toBe('/etc/punchgate/status-token');
  });

  it('punchgate run refuses to start on a non-loopback address without a token (exit 78)', () => {
    const file = tmp.path('punchgate.yaml');
    writeFileSync(
      file,
      stringify({
        ...base,
        journal: { path: tmp.path('j.db') },
        hrms: { ...base.hrms, tokenFile: 'token' },
        status: { listen: '0.0.0.0:9330' },
      }),
    );
    const r = spawnSync(process.execPath, ['dist/punchgate.js', '--config', file, 'run'], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain(
      'status.listen: 0.0.0.0:9330 can be reached from other machines: set status.authTokenFile',
    );
  });
});
