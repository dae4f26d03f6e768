import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { findLastGood, lastGoodPathFor, saveLastGood, SECRET_KEPT_OUT } from '../../src/config/last-good.js';
import { loadConfigFile } from '../../src/config/load.js';
import { checkTerminalConfig } from '../../src/sources/build.js';
import { tempDir } from '../helpers/tmp.js';
import { expectNoSecret } from '../helpers/secret.js';

/**
 * The copy of the last config that loaded (kept beside the journal for a restart with a broken
 * file) holds secrets only as references: the token, passwords and proxy credentials as the files
 * the config names, never their values; a comm key or a password written in the config itself is
 * kept out, and read back from the broken file when it still parses.
 */
const CONFIG = `# plant A
site: plant-a
journal:
  path: journal.db
hrms:
  baseUrl: https://hr.example.com
  tokenFile: token
  proxy: http://proxyuser:Pr0xyPassw0rd@proxy.example:3128
terminals:
  - name: gate-1
    kind: zk
    host: 192.168.1.201
    commKey: 918273
  - name: lobby
    kind: hikvision
    url: https://192.168.1.64
    passwordFile: lobby-password
  - name: open
    kind: zk
    host: 192.168.1.202
    commKey: 0
`;
const TOKEN = 'tok-6a1f0c9e2b';

describe('the last good copy of the config', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((c) => c()));

  function site() {
    const dir = tempDir('punchgate-lastgood-');
    cleanups.push(dir.cleanup);
    const file = dir.path('punchgate.yaml');
    writeFileSync(file, CONFIG);
    writeFileSync(dir.path('token'), `${TOKEN}\n`);
    writeFileSync(dir.path('lobby-password'), 'Hik-Pa55word\n');
    const loaded = loadConfigFile(file, checkTerminalConfig);
    const copy = saveLastGood(loaded.config.journal.path, file, loaded.text, Date.UTC(2026, 10, 22, 9, 0));
    return { dir, file, copy, text: readFileSync(copy, 'utf8') };
  }

  it('names the token, password and proxy-credential files, and holds no secret value', () => {
    const { dir, copy, text } = site();
    expect(copy).toBe(lastGoodPathFor(dir.path('journal.db')));
    // References stay as the config wrote them.
    expect(text).toContain('tokenFile: token');
    expect(text).toContain('passwordFile: lobby-password');
    // Values never: not the token (it was never in the config), not the comm key, not the proxy's password.
    for (const secret of [TOKEN, '918273', 'Pr0xyPassw0rd', 'Hik-Pa55word']) expectNoSecret(text, secret);
    expect(text).toContain(`commKey: ${SECRET_KEPT_OUT}`);
    // The whole userinfo: a proxy user name can be a credential too.
    expect(text).toContain(`"http://${SECRET_KEPT_OUT}@proxy.example:3128"`);
    expect(text).not.toContain('proxyuser');
    // A comm key of 0 (none) is no secret; comments and the rest are the file's own text.
    expect(text).toContain('commKey: 0');
    expect(text.startsWith('# plant A\nsite: plant-a\n')).toBe(true);
  });

  it('read back with the broken file: secrets restored from where it still parses, the others named', () => {
    const { file } = site();
    // A typo elsewhere: still YAML, so the comm key and the proxy password are read back from it.
    writeFileSync(file, CONFIG.replace('baseUrl:', 'baseURL:'));
    const back = findLastGood(file, checkTerminalConfig, {});
    expect(back?.secretsMissing).toEqual([]);
    expect(back?.config.terminals.find((t) => t.name === 'gate-1')).toMatchObject({ commKey: 918273 });
    expect(back?.config.hrms!.proxy).toBe('http://proxyuser:Pr0xyPassw0rd@proxy.example:3128');
    // The proxy changed and gate-1 lost its key in the edit: neither is guessed; the terminal is not polled.
    writeFileSync(
      file,
      CONFIG.replace('baseUrl:', 'baseURL:')
        .replace('proxy.example', 'proxy2.example')
        .replace('    commKey: 918273\n', ''),
    );
    const partial = findLastGood(file, checkTerminalConfig, {});
    expect(partial?.secretsMissing).toEqual([
      'the comm key of terminal gate-1 (it is not polled)',
      'the password in hrms.proxy',
    ]);
    expect(partial?.config.terminals.find((t) => t.name === 'gate-1')).toMatchObject({ enabled: false, commKey: 0 });
  });

  it('keeps every form of credential out, in values and comments, and still loads (issue 30)', () => {
    const dir = tempDir('punchgate-lastgood-');
    cleanups.push(dir.cleanup);
    const file = dir.path('punchgate.yaml');
    const forms = [
      // [what is in the file, the secret that must not be in the copy]
      ['  proxy: http://onlytoken7f3@proxy.example:3128', 'onlytoken7f3'],
      ["  proxy: 'https://u5er:p%40ss%2Fw0rd9@proxy.example:8443'", 'p%40ss%2Fw0rd9'],
      ['  baseUrl: https://hr.example.com/?access_token=qz81KEYx&key=Hk9Zt4Lw', 'Hk9Zt4Lw'],
      ['# the old proxy was http://olduser:0ldPassw0rd@proxy.example:3128', '0ldPassw0rd'],
      ['# PROXY_PASSWORD=Env5ecret HTTPS_PROXY=http://eu:EnvUrlPw@p:1', 'Env5ecret'],
      ['# proxy password: "Quoted Pw 42"', 'Quoted Pw 42'],
      // Found by an adversarial trial: a query under a name no pattern knew, and a secret written
      // again in a comment in plain words.
      ['# ask IT: the proxy login is still onlytoken7f3, and the HR key Hk9Zt4Lw', 'Hk9Zt4Lw'],
    ] as const;
    const text = `site: plant-a
journal:
  path: journal.db
${forms[3][0]}
${forms[4][0]}
${forms[5][0]}
${forms[6][0]}
hrms:
${forms[2][0]}
  tokenFile: token
  # A later trial: a secret written again in a comment after a value, not on a line of its own.
  timeoutMs: 30000 # the proxy login is onlytoken7f3, the key Hk9Zt4Lw
${forms[0][0]}
terminals: []
`;
    writeFileSync(file, text);
    writeFileSync(dir.path('token'), `${TOKEN}\n`);
    const loaded = loadConfigFile(file, checkTerminalConfig);
    const copyPath = saveLastGood(loaded.config.journal.path, file, loaded.text, Date.UTC(2026, 10, 22, 9, 0));
    const copy = readFileSync(copyPath, 'utf8');
    for (const [, secret] of forms) expect(copy).not.toContain(secret);
    for (const s of ['EnvUrlPw', 'olduser', 'onlytoken7f3', 'qz81KEYx']) expect(copy).not.toContain(s);
    // References to files stay as written; the copy still loads (its secrets read back from the file).
    expect(copy).toContain('tokenFile: token');
    writeFileSync(file, text.replace('terminals: []', 'terminals: []\nbogus: 1'));
    const back = findLastGood(file, checkTerminalConfig, {});
    expect(back?.secretsMissing).toEqual([]);
    expect(back?.config.hrms!.proxy).toBe('http://onlytoken7f3@proxy.example:3128');
    expect(back?.config.hrms!.baseUrl).toBe('https://hr.example.com/?access_token=qz81KEYx&key=Hk9Zt4Lw');
    // The second proxy form, in its own file.
    writeFileSync(file, text.replace(forms[0][0], forms[1][0]));
    const again = loadConfigFile(file, checkTerminalConfig);
    const second = readFileSync(saveLastGood(again.config.journal.path, file, again.text, 0), 'utf8');
    expect(second).not.toContain('p%40ss%2Fw0rd9');
    expect(second).not.toContain('u5er');
    // Forms a URL parser takes whole: a raw @ in the password (the userinfo ends at the last @), a
    // quote in it, the scheme in capitals, a proxy given by an alias. Kept out whole, read back whole.
    const more = [
      [
        '  proxy: http://alice:p@ss9Word@proxy.example:3128',
        'http://alice:p@ss9Word@proxy.example:3128',
        ['ss9Word', 'alice'],
      ],
      ["  proxy: 'http://alice:it''sPw77@proxy.example:3128'", "http://alice:it'sPw77@proxy.example:3128", ['sPw77']],
      [
        '  proxy: HTTP://bob:CapsPw31@proxy.example:3128',
        'http://bob:CapsPw31@proxy.example:3128',
        ['CapsPw31', 'bob'],
      ],
      [
        '  proxy: "http://carol:Dq@uote2@proxy.example:3128"',
        'http://carol:Dq@uote2@proxy.example:3128',
        ['uote2', 'carol'],
      ],
    ] as const;
    for (const [line, value, secrets] of more) {
      writeFileSync(file, text.replace(forms[0][0], line));
      const loadedMore = loadConfigFile(file, checkTerminalConfig);
      const copyMore = readFileSync(saveLastGood(loadedMore.config.journal.path, file, loadedMore.text, 0), 'utf8');
      for (const secret of secrets) expect(copyMore, line).not.toContain(secret);
      writeFileSync(file, text.replace(forms[0][0], line).replace('terminals: []', 'terminals: []\nbogus: 1'));
      const backMore = findLastGood(file, checkTerminalConfig, {});
      expect(backMore?.secretsMissing, line).toEqual([]);
      expect(new URL(backMore!.config.hrms!.proxy as string).href, line).toBe(new URL(value).href);
    }
  });

  it('is found only for the file it was copied from', () => {
    const { dir, file } = site();
    const other = dir.path('other.yaml');
    const broken = 'journal:\n  path: journal.db\nsite: plant-a\nbogus: 1\n';
    writeFileSync(other, broken);
    expect(findLastGood(other, checkTerminalConfig, {})).toBeUndefined();
    writeFileSync(file, broken);
    expect(findLastGood(file, checkTerminalConfig, {})?.source).toBe(file);
  });
});
