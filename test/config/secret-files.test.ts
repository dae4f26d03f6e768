import { chmodSync, writeFileSync } from 'node:fs';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { secretFilesReadableByAll } from '../../src/config/secret-files.js';
import { ConfigWatch } from '../../src/daemon/config-watch.js';
import { checkTerminalConfig } from '../../src/sources/build.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A secret file every user may read is said (found by a new-user trial: a 0644 hrms.tokenFile
 * passed check and run in silence): by check, and by run at start and on reload. Never refused.
 */
describe('secret files readable by every user', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  const secrets = ['token', 'proxy-cred', 'key', 'secret', 'odoo-key', 'cam-pass', 'page-token'];
  const write = (mode: number, commKey = true) => {
    for (const f of [...secrets, 'ca.pem']) {
      writeFileSync(tmp.path(f), 'x');
      chmodSync(tmp.path(f), mode);
    }
    const file = tmp.path('punchgate.yaml');
    writeFileSync(
      file,
      `site: plant-a
journal:
  path: j.db
hrms:
  baseUrl: https://hr.example.com
  tokenFile: token
  proxy: http://proxy.lan:3128
  proxyCredentialsFile: proxy-cred
  caFile: ca.pem
sinks:
  - name: erp
    kind: frappe
    baseUrl: https://erp.example.com
    apiKeyFile: key
    apiSecretFile: secret
  - name: odoo
    kind: odoo
    baseUrl: https://odoo.example.com
    database: db
    apiKeyFile: odoo-key
terminals:
  - name: cam
    kind: hikvision
    url: https://192.168.1.64
    passwordFile: cam-pass
${commKey ? '  - name: gate\n    kind: zk\n    host: 192.168.1.201\n    commKey: 123456\n' : ''}status:
  authTokenFile: page-token
`,
    );
    chmodSync(file, mode);
    return file;
  };

  it('names each one with its key, its mode and the fix; the config file too (it holds comm keys)', () => {
    const file = write(0o644);
    const said = secretFilesReadableByAll(file, loadConfig(file, checkTerminalConfig));
    expect(said.map((s) => s.detail)).toEqual([
      `the config file ${file} is mode 0644, readable by every user of this box`,
      `hrms.tokenFile: ${tmp.path('token')} is mode 0644, readable by every user of this box`,
      `hrms.proxyCredentialsFile: ${tmp.path('proxy-cred')} is mode 0644, readable by every user of this box`,
      `sinks[0].apiKeyFile: ${tmp.path('key')} is mode 0644, readable by every user of this box`,
      `sinks[0].apiSecretFile: ${tmp.path('secret')} is mode 0644, readable by every user of this box`,
      `sinks[1].apiKeyFile: ${tmp.path('odoo-key')} is mode 0644, readable by every user of this box`,
      `terminals[0].passwordFile: ${tmp.path('cam-pass')} is mode 0644, readable by every user of this box`,
      `status.authTokenFile: ${tmp.path('page-token')} is mode 0644, readable by every user of this box`,
    ]);
    expect(said[1]!.fix).toBe(`chmod 0640 ${tmp.path('token')}; chown root:punchgate ${tmp.path('token')}`);
  });

  it('a config file that holds no secret itself (its secrets in files, as the demo writes it) may be read by all', () => {
    const file = write(0o644, false);
    const said = secretFilesReadableByAll(file, loadConfig(file, checkTerminalConfig));
    expect(said.map((s) => s.detail)).toHaveLength(secrets.length);
    expect(said.some((s) => s.detail.startsWith('the config file'))).toBe(false);
  });

  it('0640 (group read, as the docs ask) and 0600 are fine', () => {
    for (const mode of [0o640, 0o600]) {
      const file = write(mode);
      expect(secretFilesReadableByAll(file, loadConfig(file, checkTerminalConfig))).toEqual([]);
    }
  });

  it('run says each once at start, and again on a reload, and runs', () => {
    const file = write(0o644);
    const lines: { level: number; msg: string }[] = [];
    const deps = {
      clock: { now: () => Date.now(), elapsed: () => performance.now() },
      logger: pino(
        { level: 'info' },
        { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) },
      ),
      checkTerminal: checkTerminalConfig,
    };
    const { config, watch } = ConfigWatch.startWith(file, deps);
    expect(config.site).toBe('plant-a');
    const warned = () => lines.filter((l) => l.level === 40 && l.msg.includes('readable by every user')).length;
    expect(warned()).toBe(secrets.length + 1);
    expect(lines.find((l) => l.msg.includes('hrms.tokenFile'))!.msg).toContain('chown root:punchgate');
    watch.loaded({ config, text: '' });
    expect(warned()).toBe(2 * (secrets.length + 1));
  });
});
