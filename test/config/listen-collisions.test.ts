import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigText, type ConfigError } from '../../src/config/load.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Two listeners of the config on one port (found by a new-user trial: status.listen and
 * adms.listen both 127.0.0.1:29333 passed check, and run then said every few seconds that the
 * status page's port was in use, by its own push receiver).
 */
describe('listeners of the config on one port', () => {
  const head = 'site: plant-a\njournal:\n  path: j.db\nhrms:\n  baseUrl: https://hr.example.com\n';
  const problems = (tail: string): string[] => {
    try {
      parseConfigText(head + tail, 'punchgate.yaml', '/etc/punchgate');
      return [];
    } catch (e) {
      return (e as ConfigError).problems;
    }
  };
  const both = (adms: string, status: string) =>
    problems(`adms:\n  listen: "${adms}"\nstatus:\n  listen: "${status}"\n  allowUnauthenticated: true\n`);

  it('the same address and port: an error naming both keys', () => {
    expect(both('127.0.0.1:29333', '127.0.0.1:29333')).toEqual([
      'punchgate.yaml:7: adms.listen: expected a port of its own for the push terminal receiver (adms.listen), found 127.0.0.1:29333, ' +
        'which status.listen (127.0.0.1:29333) takes already: give one of them another port',
    ]);
  });

  it('a wildcard address takes the port on every address: it collides with any other on that port', () => {
    for (const [adms, status] of [
      ['0.0.0.0:8081', '127.0.0.1:8081'],
      ['127.0.0.1:8081', '0.0.0.0:8081'],
      ['[::]:8081', '127.0.0.1:8081'],
      ['192.168.1.5:8081', '[::]:8081'],
      ['localhost:8081', '127.0.0.1:8081'],
    ])
      expect(both(adms!, status!), `${adms} ${status}`).toHaveLength(1);
  });

  it('other ports, other addresses, a status page that is off and port 0 are fine', () => {
    expect(both('0.0.0.0:8081', '127.0.0.1:9330')).toEqual([]);
    expect(both('192.168.1.5:8081', '127.0.0.1:8081')).toEqual([]);
    expect(both('127.0.0.1:0', '127.0.0.1:0')).toEqual([]);
    expect(problems('adms:\n  listen: 0.0.0.0:8081\nstatus:\n  listen: false\n')).toEqual([]);
  });

  it('status.listen left out listens on its default: a receiver on that port is an error too', () => {
    expect(problems('adms:\n  listen: 0.0.0.0:9330\n')).toEqual([
      'punchgate.yaml:7: adms.listen: expected a port of its own for the push terminal receiver (adms.listen), found 0.0.0.0:9330, ' +
        'which status.listen (127.0.0.1:9330, its default when not set) takes already: give one of them another port',
    ]);
  });

  it('is reported with the other errors of the config', () => {
    const p = problems(
      'terminals:\n  - name: g\n    kind: zk\nadms:\n  listen: "127.0.0.1:29333"\nstatus:\n  listen: "127.0.0.1:29333"\n',
    );
    expect(p).toHaveLength(2);
    expect(p.join('\n')).toContain('adms.listen: expected a port of its own');
  });

  describe('through punchgate check', () => {
    let tmp: ReturnType<typeof tempDir>;
    beforeEach(() => (tmp = tempDir()));
    afterEach(() => tmp.cleanup());

    it('check --config-only exits 78 at the line', async () => {
      const file = tmp.path('punchgate.yaml');
      writeFileSync(
        file,
        `${head}  tokenFile: t\nadms:\n  listen: 127.0.0.1:29333\nstatus:\n  listen: 127.0.0.1:29333\n`,
      );
      const r = await runPunchgate(['--config', file, 'check', '--config-only']);
      expect(r.status, r.stdout + r.stderr).toBe(78);
      expect(r.stdout + r.stderr).toContain(
        'punchgate.yaml:8: adms.listen: expected a port of its own for the push terminal receiver (adms.listen), found 127.0.0.1:29333, which status.listen',
      );
    });
  });
});
