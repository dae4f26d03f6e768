import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { problemsOf } from '../../src/config/issues.js';
import { tempDir } from '../helpers/tmp.js';
import { expectNoSecret } from '../helpers/secret.js';

/**
 * What a site admin sees for a config mistake: `punchgate` as a child process on a real file,
 * exit 78, one `file:line: path (terminal name): what was expected, what was found` line each.
 */
describe('config messages through punchgate', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  const run = (yaml: string, command = 'status') => {
    const file = tmp.path('punchgate.yaml');
    writeFileSync(file, yaml);
    const r = spawnSync(process.execPath, ['dist/punchgate.js', '--config', file, command], {
      encoding: 'utf8',
      env: { ...process.env, PUNCHGATE_HRMS_TOKEN: '' },
    });
    return { file, status: r.status, lines: r.stderr.split('\n').filter(Boolean), stderr: r.stderr, stdout: r.stdout };
  };

  const head = `site: plant-a
journal:
  path: j.db
hrms:
  baseUrl: https://hr.example.com
  tokenFile: token
`;

  it('says what was expected and what was found for every wrong type, with the line and the terminal name', () => {
    const r = run(`site: plant-a
journal:
  path: j.db
hrms:
  baseUrl: https://hr.example.com
  tokenFile: 42
delivery:
  batchSize: "200"
terminals:
  - name: gate-1
    kind: zk
    host: 10.0.0.1
    port: "24370"
    realtime: yes
    commKey: "013579"
  - name: gate-2
    kind: zk
    host: 10.0.0.2
    port: 70000
    transport: tcpp
`);
    expect(r.status).toBe(78);
    expect(r.lines).toEqual([
      `${r.file}:6: hrms.tokenFile: must be text, got the number 42`,
      `${r.file}:8: delivery.batchSize: must be a number, got the text "200" (write it without quotes: batchSize: 200)`,
      `${r.file}:13: terminals[0] (gate-1).port: must be a number, got the text "24370" (write it without quotes: port: 24370)`,
      `${r.file}:14: terminals[0] (gate-1).realtime: must be true or false, got the text "yes"`,
      `${r.file}:15: terminals[0] (gate-1).commKey: must be a number, got text (not shown: it is a secret) (write it without quotes)`,
      `${r.file}:19: terminals[1] (gate-2).port: must be at most 65535, got the number 70000`,
      `${r.file}:20: terminals[1] (gate-2).transport: must be one of "tcp", "udp", "auto", got the text "tcpp" (did you mean "tcp"?)`,
    ]);
    expectNoSecret(r.stderr, '013579');
    expect(r.stderr).not.toContain('is required');
  });

  it('suggests the key a near miss meant, and does not also call that key missing', () => {
    const r = run(`site: plant-a
journal:
  path: j.db
  retentionDay: 30
hrms:
  baseURL: https://hr.example.com
  tokenFile: token
terminals:
  - name: gate-1
    kind: zk
    host: 10.0.0.1
    synClock: true
`);
    expect(r.status).toBe(78);
    expect(r.lines).toEqual([
      `${r.file}:4: journal.retentionDay: unknown key: did you mean retentionDays?`,
      `${r.file}:6: hrms.baseURL: unknown key: did you mean baseUrl?`,
      `${r.file}:12: terminals[0] (gate-1).synClock: unknown key: did you mean syncClock?`,
    ]);
  });

  it('an inline hrms.token says where the token goes, and never echoes it', () => {
    const r = run(`${head}  token: s3cr3t-t0ken-value\n`);
    expect(r.status).toBe(78);
    expect(r.lines).toEqual([
      `${r.file}:7: hrms.token: the token does not belong in the config: put the token in hrms.tokenFile or PUNCHGATE_HRMS_TOKEN`,
    ]);
    expect(r.stderr + r.stdout).not.toContain('s3cr3t');
  });

  it('names a missing key at the section that lacks it, and an unknown terminal kind with the kinds there are', () => {
    const r = run(`${head}terminals:
  - name: gate-1
    kind: zk
  - name: door
    kind: modem
  - kind: serial
    path: /dev/ttyUSB0
    format: regex
    dataBits: 9
`);
    expect(r.status).toBe(78);
    expect(r.lines).toEqual([
      `${r.file}:8: terminals[0] (gate-1).host: is required: the terminal's IP address or host name (e.g. 192.168.1.201)`,
      `${r.file}:11: terminals[1] (door).kind: must be one of "zk", "serial", "hikvision", "adms", "dahua", "biotime", got the text "modem"`,
      `${r.file}:12: terminals[2].name: is required: a name of the terminal's own, used in commands, logs and the status (e.g. gate-1)`,
      `${r.file}:15: terminals[2].dataBits: must be one of 5, 6, 7, 8, got the number 9`,
    ]);
  });

  it('a terminal check (serial pattern) is located like a schema error', () => {
    const r = run(`${head}terminals:
  - name: clock
    kind: serial
    path: /dev/ttyUSB0
    format: regex
    pattern: '^(?<code>\\d+)$'
`);
    expect(r.status).toBe(78);
    expect(r.lines).toEqual([
      `${r.file}:12: terminals[0] (clock).pattern: needs a named group "time", written (?<time>...)`,
    ]);
  });

  it('follows anchors and merge keys: a value at the line it is written, a missing key where the alias is used', () => {
    const r = run(`${head}terminals:
  - &gate
    name: gate-1
    kind: zk
    host: 10.0.0.1
    port: "4370"
  - <<: *gate
    name: gate-2
  - *gate
  - kind: zk
    <<: *gate
    name: gate-3
    host: 10.0.0.3
    port: 4370
`);
    expect(r.status).toBe(78);
    expect(r.lines).toEqual([
      // The whole first terminal again (*gate): its name is a duplicate, written at the anchor.
      `${r.file}:9: terminals[2] (gate-1).name: duplicate terminal name "gate-1": terminals[0] has it already; give each terminal its own name`,
      `${r.file}:12: terminals[0] (gate-1).port: must be a number, got the text "4370" (write it without quotes: port: 4370)`,
      `${r.file}:12: terminals[1] (gate-2).port: must be a number, got the text "4370" (write it without quotes: port: 4370)`,
      `${r.file}:12: terminals[2] (gate-1).port: must be a number, got the text "4370" (write it without quotes: port: 4370)`,
    ]);
  });

  it('never repeats a password written into a URL, and escapes control characters of the file', () => {
    const r = run(`site: "https://admin:hunter2@hr.example.com"
journal:
  path: j.db
hrms:
  baseUrl: https://hr.example.com
  "tokenFile\u001b[2J": x
`);
    expect(r.status).toBe(78);
    expect(r.stderr).not.toContain('hunter2');
    expect(r.stderr).not.toContain('\u001b');
    expect(r.lines[0]).toBe(
      `${r.file}:1: site: must be 1-32 letters, digits, "_" or "-", got the text "https://(user and password not shown)@hr.example.com"`,
    );
    expect(r.lines[1]).toMatch(/:6: hrms\.tokenFile\\x1b\[2J: unknown key \(the keys here are: baseUrl, tokenFile, /);
  });

  it('refuses a user name or password in the address of a server (never sent), and never repeats it, however long', () => {
    const longPassword = `pw-${'x'.repeat(70)}-end`;
    const r = run(`site: plant-a
journal:
  path: j.db
hrms:
  baseUrl: https://admin:${longPassword}@hr.example.com
  tokenFile: token
sinks:
  - name: odoo
    kind: odoo
    baseUrl: https://apitoken-123456789@odoo.example.com
    database: prod
    login: punchgate
    apiKeyFile: key
terminals:
  - name: gate-cam
    kind: hikvision
    url: http://admin:Cam-Pass-77@192.168.1.64
  - name: biotime
    kind: biotime
    baseUrl: http://u:p@ss-word-99@192.168.1.20:8081
    username: admin
`);
    expect(r.status).toBe(78);
    const refused = (line: number, path: string) =>
      expect(r.lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^${r.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}: ${path}: must not hold a user name or password`,
          ),
        ),
      );
    refused(5, 'hrms\\.baseUrl');
    refused(10, 'sinks\\[0\\] \\(odoo\\)\\.baseUrl');
    refused(17, 'terminals\\[0\\] \\(gate-cam\\)\\.url');
    refused(20, 'terminals\\[1\\] \\(biotime\\)\\.baseUrl');
    for (const secret of ['pw-xxxxxxxx', 'apitoken-123456789', 'Cam-Pass-77', 'ss-word-99', 'admin:'])
      expect(r.stderr).not.toContain(secret);
  });

  it('says a YAML slip (a tab, an indent, a missing "- ", a key twice, an open quote) once a line, in plain words with the fix', () => {
    const terminals = 'terminals:\n  - name: gate-1\n    kind: zk\n';
    const slips: [string, string][] = [
      [
        `${head}${terminals}\thost: 10.0.0.3\n`,
        ':10: expected spaces before the text, found a tab: YAML indents with spaces only',
      ],
      [
        `${head}${terminals}      port: 4370\n`,
        ':10: expected "port" to line up with "kind" on line 9, found it indented deeper',
      ],
      [
        `${head}${terminals}   port: 4370\n`,
        ':10: expected this line to line up with the keys above it, or to start a new list item with "- "',
      ],
      [
        `${head}${terminals}    host: x\n    name: gate-2\n`,
        ':11: expected each key once in a block, found "name" a second time (keep one; if it starts another list item, put "- " before its first key)',
      ],
      [
        `site: "plant-a\n${head.slice(head.indexOf('journal'))}`,
        ':1: expected the " quote opened on this line to be closed, found none (the parser read on to line 7',
      ],
    ];
    for (const [yaml, said] of slips) {
      const r = run(yaml);
      expect(r.status, yaml).toBe(78);
      expect(r.lines, yaml).toHaveLength(1);
      expect(r.lines[0], yaml).toContain(`${r.file}${said}`);
    }
  });

  it('says one slip in the middle of a block once, naming the correct lines after it the parser stumbled on, not as problems of their own', () => {
    // A new-user trial: host indented by 3 spaces among keys at 4 made six problems, five on correct lines.
    const rest =
      '    port: 4370\n    transport: auto\n    commKey: 0\n  - name: gate-2\n    kind: zk\n    host: 10.0.0.4\n';
    const slips: [string, string][] = [
      [
        `${head}terminals:\n  - name: gate-1\n    kind: zk\n   host: 10.0.0.3\n${rest}`,
        ':10: expected this line to line up with the keys above it, or to start a new list item with "- ", found it indented in between; the parser also stumbled on lines 11 and 12 after it, most likely only because of this one: correct this line first, then run punchgate check again',
      ],
      // A tab among the spaces: said as the tab, not as "another column".
      [
        `${head}terminals:\n  - name: gate-1\n    kind: zk\n  \t  host: 10.0.0.3\n${rest}`,
        ':10: expected spaces before the text, found a tab: YAML indents with spaces only',
      ],
    ];
    for (const [yaml, said] of slips) {
      const r = run(yaml);
      expect(r.status, yaml).toBe(78);
      expect(r.lines, yaml).toHaveLength(1);
      expect(r.lines[0], yaml).toContain(`${r.file}${said}`);
    }
  });

  it('refuses a terminal name given twice, or twice but for letter case, saying where the first one is', () => {
    const r = run(`${head}terminals:
  - name: gate-1
    kind: zk
    host: 10.0.0.1
  - name: gate-1
    kind: zk
    host: 10.0.0.2
  - name: GATE-1
    kind: zk
    host: 10.0.0.3
`);
    expect(r.status).toBe(78);
    expect(r.lines).toEqual([
      `${r.file}:11: terminals[1] (gate-1).name: duplicate terminal name "gate-1": terminals[0] has it already; give each terminal its own name`,
      `${r.file}:14: terminals[2] (GATE-1).name: terminal name "GATE-1" differs only in letter case from terminals[0] ("gate-1"): give each terminal a name of its own`,
    ]);
  });

  it('reports a duplicate name together with other wrong keys, not only once they are fixed', () => {
    const r = run(`${head}delivery:
  batchSize: "200"
terminals:
  - name: gate-1
    kind: zk
    host: 10.0.0.1
  - name: gate-1
    kind: zk
    host: 10.0.0.2
    port: many
  - name: 7
    kind: zk
    host: 10.0.0.3
`);
    expect(r.status).toBe(78);
    expect(r.lines).toEqual(
      expect.arrayContaining([
        `${r.file}:8: delivery.batchSize: must be a number, got the text "200" (write it without quotes: batchSize: 200)`,
        `${r.file}:13: terminals[1] (gate-1).name: duplicate terminal name "gate-1": terminals[0] has it already; give each terminal its own name`,
      ]),
    );
    expect(r.lines.filter((l) => l.includes('duplicate'))).toHaveLength(1);
    // The same for a push terminal's serial and a sink's name.
    const more = run(`${head}adms:
  listen: 127.0.0.1:0
sinks:
  - name: odoo
    kind: odoo
    baseUrl: 7
  - name: odoo
    kind: odoo
terminals:
  - name: a
    kind: adms
    serial: CQZ1
  - name: b
    kind: adms
    serial: cqz1
    timezone: Mars/Olympus
`);
    expect(more.status).toBe(78);
    expect(more.lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/:13: sinks\[1\] \(odoo\)\.name: duplicate sink name "odoo"$/),
        expect.stringMatching(/:21: terminals\[1\] \(b\)\.serial: serial cqz1 is already the serial of terminal "a"$/),
        expect.stringMatching(/:22: terminals\[1\] \(b\)\.timezone: /),
      ]),
    );
  });

  it('check shows the same lines and exits 78', () => {
    const r = run(`${head}delivery:\n  batchSize: "200"\n`, 'check');
    expect(r.status).toBe(78);
    expect(r.stdout).toContain(
      `  ${r.file}:8: delivery.batchSize: must be a number, got the text "200" (write it without quotes: batchSize: 200)\n`,
    );
  });
});

describe('config messages for any schema', () => {
  it('works from the schema alone: a new terminal kind and its keys are known without a list', () => {
    const schema = z.strictObject({
      terminals: z.array(
        z.discriminatedUnion('kind', [
          z.strictObject({ name: z.string(), kind: z.literal('zk'), host: z.string() }),
          z.strictObject({ name: z.string(), kind: z.literal('push'), listenPort: z.number().int().default(8088) }),
        ]),
      ),
    });
    const raw = {
      terminals: [
        { name: 'p1', kind: 'push', listenPrt: 9000 },
        { name: 'p2', kind: 'push', listenPort: 'x' },
        { name: 'p3', kind: 'psh' },
      ],
    };
    const r = schema.safeParse(raw, { reportInput: true });
    expect(r.success).toBe(false);
    const lines = problemsOf(r.error!.issues, schema, raw).map((p) => `${p.path.join('.')}: ${p.message}`);
    expect(lines).toEqual([
      'terminals.0.listenPrt: unknown key: did you mean listenPort?',
      'terminals.1.listenPort: must be a number, got the text "x"',
      'terminals.2.kind: must be one of "zk", "push", got the text "psh" (did you mean "push"?)',
    ]);
  });
});
