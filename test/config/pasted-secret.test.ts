import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError, parseConfig } from '../../src/config/load.js';
import { looksLikeSecret } from '../../src/config/pasted-secrets.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

// A new-user trial pasted the HRMS token as hrms.tokenFile: the config loaded, and the token, taken
// for a file name, was printed by check ("cannot read /etc/punchgate/<token>"), logged, shown in the
// status and on the page, written to the journal and to the kept copy of the config.
const TOKEN = 's3cr3t-Token-ABCDEFGH12345678';
const base = { site: 'plant-a', journal: { path: 'journal.db' } };
const problems = (raw: unknown, dir = '/nonexistent-dir') => {
  try {
    parseConfig(raw, dir);
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

describe('a secret pasted where its file belongs', () => {
  it('is refused for every secret file key, naming the key and never the value', () => {
    const found = problems({
      ...base,
      hrms: { baseUrl: 'https://hr.example.com', tokenFile: TOKEN, proxyCredentialsFile: 'proxyuser:Pa55word' },
      status: { authTokenFile: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc' },
      sinks: [
        {
          name: 'erp',
          kind: 'frappe',
          baseUrl: 'https://erp.example.com',
          apiKeyFile: '1c2b3a4d5e6f7a8b',
          apiSecretFile: '9f8e7d6c5b4a39281706',
        },
      ],
      terminals: [
        { name: 'door', kind: 'hikvision', url: 'https://192.168.1.50', username: 'admin', passwordFile: 'Hik12345' },
      ],
    });
    expect(found).toEqual([
      expect.stringMatching(/^hrms\.tokenFile: expected the name of a file that holds the token, found text/),
      expect.stringMatching(/^hrms\.proxyCredentialsFile: expected the name of a file that holds the secret/),
      expect.stringMatching(/^status\.authTokenFile: expected the name of a file that holds the token/),
      expect.stringMatching(/^sinks\[0\] \(erp\)\.apiKeyFile: expected .* the secret/),
      expect.stringMatching(/^sinks\[0\] \(erp\)\.apiSecretFile: expected .* the secret/),
      expect.stringMatching(/^terminals\[0\] \(door\)\.passwordFile: expected .* the password/),
    ]);
    for (const secret of [TOKEN, 'Pa55word', 'eyJhbGci', '1c2b3a4d', '9f8e7d6c', 'Hik12345'])
      expect(found.join('\n')).not.toContain(secret);
  });

  it('keeps file names as they are written, and a file that exists whatever its name', () => {
    for (const name of [
      'token',
      'demo-token',
      'frappe-api-secret',
      'punchgate-token-2026',
      'hr-new.token',
      'sink-erp.apiKey',
      '/etc/punchgate/token',
      '/run/secrets/punchgate_token',
      'secrets/Token2',
      './Hik12345',
    ])
      expect(looksLikeSecret(name), name).toBe(false);
    const dir = tempDir('punchgate-pasted-');
    writeFileSync(dir.path(TOKEN), 'the real token\n');
    expect(problems({ ...base, hrms: { baseUrl: 'https://hr.example.com', tokenFile: TOKEN } }, dir.path('.'))).toEqual(
      [],
    );
    dir.cleanup();
  });

  it('stops check and run with exit 78 before anything is written, the token nowhere', async () => {
    const dir = tempDir('punchgate-pasted-cli-');
    const config = dir.path('punchgate.yaml');
    writeFileSync(
      config,
      stringify({ ...base, hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: TOKEN }, status: { listen: false } }),
    );
    const [check, run] = await Promise.all([
      runPunchgate(['check', '--config', config]),
      runPunchgate(['run', '--config', config], { timeoutMs: 10_000 }),
    ]);
    for (const r of [check, run]) {
      expect(r.status).toBe(78);
      expect(r.stdout + r.stderr).toMatch(/punchgate\.yaml:\d+: hrms\.tokenFile: expected the name of a file/);
      expect(r.stdout + r.stderr).not.toContain('ABCDEFGH');
    }
    expect(existsSync(dir.path('journal.db'))).toBe(false);
    expect(readdirSync(dir.path('.'))).toEqual(['punchgate.yaml']);
    dir.cleanup();
  });
});
