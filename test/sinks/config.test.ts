import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { decideFallback } from '../../src/config/fallback.js';
import { sinksOf, sinksOfTerminal, terminalsNotFor } from '../../src/config/sinks.js';
import { tempDir } from '../helpers/tmp.js';

/** The `sinks:` list (issue 32): what loads, what it means, and the line a mistake is reported at. */
describe('sinks in the config', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  const parse = (yaml: string) => parseConfigText(yaml, '/etc/punchgate/punchgate.yaml', '/etc/punchgate');
  const head = `site: plant-a
journal:
  path: j.db
`;

  it('makes the hrms: block the sink "hrms", first, and every terminal goes to every sink by default', () => {
    const c = parse(`${head}hrms:
  baseUrl: https://hr.example.com
  tokenFile: token
sinks:
  - name: erp
    kind: frappe
    baseUrl: https://erp.example.com
    apiKeyFile: erp-key
    apiSecretFile: erp-secret
  - name: odoo
    kind: odoo
    baseUrl: https://odoo.example.com
    database: prod
    apiKeyFile: /etc/punchgate/odoo-key
terminals:
  - { name: gate-1, kind: zk, host: 10.0.0.1 }
  - { name: gate-2, kind: zk, host: 10.0.0.2, sinks: [erp] }
`);
    const sinks = sinksOf(c);
    expect(sinks.map((s) => [s.name, s.kind])).toEqual([
      ['hrms', 'hrms'],
      ['erp', 'frappe'],
      ['odoo', 'odoo'],
    ]);
    const erp = sinks[1]!;
    expect(erp.kind === 'frappe' && erp).toMatchObject({
      apiKeyFile: '/etc/punchgate/erp-key',
      apiSecretFile: '/etc/punchgate/erp-secret',
      method: 'hrms',
      employeeFieldname: 'attendance_device_id',
      concurrency: 4,
    });
    const odoo = sinks[2]!;
    expect(odoo.kind === 'odoo' && odoo).toMatchObject({
      api: 'auto',
      employeeField: 'barcode',
      longestShiftHours: 16,
      employeeCacheSeconds: 300,
    });
    expect(sinksOfTerminal(c, 'gate-1')).toEqual(['hrms', 'erp', 'odoo']);
    expect(sinksOfTerminal(c, 'gate-2')).toEqual(['erp']);
    expect(terminalsNotFor(c, 'hrms')).toEqual(['gate-2']);
    expect(terminalsNotFor(c, 'erp')).toEqual([]);
  });

  it("takes a sinks: list without an hrms: block; a seed sink has the hrms: block's keys and defaults", () => {
    const c = parse(`${head}sinks:
  - name: seed-b
    kind: hrms
    baseUrl: http://127.0.0.1:9000
    tokenFile: b-token
`);
    expect(c.hrms).toBeUndefined();
    const [s] = sinksOf(c);
    expect(s).toMatchObject({
      name: 'seed-b',
      kind: 'hrms',
      tokenFile: '/etc/punchgate/b-token',
      userPath: '/api.php/system/hrms/updateUser',
      timeoutMs: 30_000,
    });
  });

  const run = (yaml: string) => {
    const file = tmp.path('punchgate.yaml');
    writeFileSync(file, yaml);
    const r = spawnSync(process.execPath, ['dist/punchgate.js', '--config', file, 'status'], {
      encoding: 'utf8',
      env: { ...process.env, PUNCHGATE_HRMS_TOKEN: '' },
    });
    return { file, status: r.status, lines: r.stderr.split('\n').filter(Boolean) };
  };

  it('refuses bad sink entries with file:line, exit 78, never echoing a secret', () => {
    const r = run(`${head}hrms:
  baseUrl: https://hr.example.com
sinks:
  - name: erp
    kind: frappe
    baseUrl: http://erp.example.com
    apiKeyFile: k
    apiSecretFile: s
    concurrency: 40
  - name: erp
    kind: odoo
    baseUrl: https://odoo.example.com
    apiKeyFile: k
  - name: x
    kind: sap
    baseUrl: https://sap.example.com
  - name: y
    kind: frappe
    baseUrl: https://erp.example.com
    apiKeyFile: k
    apiSecretFile: s
    apiSecret: hunter2-sekrit
`);
    expect(r.status).toBe(78);
    const text = r.lines.join('\n');
    expect(text).not.toContain('hunter2-sekrit');
    expect(r.lines).toEqual([
      `${r.file}:9: sinks[0] (erp).baseUrl: must be an https:// URL (http:// is accepted for loopback hosts, or with allowInsecureHttp: true)`,
      `${r.file}:12: sinks[0] (erp).concurrency: must be at most 16, got the number 40`,
      `${r.file}:13: sinks[1] (erp).database: is required: the name of the Odoo database, the one chosen at sign-in (e.g. mycompany)`,
      `${r.file}:13: sinks[1] (erp).name: duplicate sink name "erp"`,
      `${r.file}:18: sinks[2] (x).kind: must be one of "hrms", "frappe", "odoo", got the text "sap"`,
      expect.stringMatching(/:25: sinks\[3\] \(y\)\.apiSecret: unknown key/),
    ]);
  });

  it('refuses a sink name taken twice and a terminal naming a sink that does not exist', () => {
    const r = run(`${head}hrms:
  baseUrl: https://hr.example.com
sinks:
  - name: hrms
    kind: hrms
    baseUrl: https://hr2.example.com
  - name: b
    kind: hrms
    baseUrl: https://hr3.example.com
  - name: b
    kind: hrms
    baseUrl: https://hr4.example.com
terminals:
  - name: gate-1
    kind: zk
    host: 10.0.0.1
    sinks: [b, nowhere]
`);
    expect(r.status).toBe(78);
    expect(r.lines).toEqual([
      `${r.file}:7: sinks[0] (hrms).name: "hrms" is the name of the sink the hrms: block makes: give this one another name`,
      `${r.file}:13: sinks[2] (b).name: duplicate sink name "b"`,
      `${r.file}:20: terminals[0] (gate-1).sinks[1]: no sink is named "nowhere" (the sinks are: hrms, b)`,
    ]);
  });

  it('an empty config says the HRMS is required, as before', () => {
    const r = run(head);
    expect(r.status).toBe(78);
    expect(r.lines.join('\n')).toContain(`hrms: is required`);
  });

  it('on the last good copy, holds delivery while the broken file names another address for a sink', () => {
    const copy = parse(`${head}hrms:
  baseUrl: https://hr.example.com
sinks:
  - { name: b, kind: hrms, baseUrl: https://b.example.com }
`);
    const file = tmp.path('broken.yaml');
    const broken = (bUrl: string) =>
      writeFileSync(
        file,
        `${head}hrms:\n  baseUrl: https://hr.example.com\n  nonsense: 1\nsinks:\n  - { name: b, kind: hrms, baseUrl: ${bUrl} }\n`,
      );
    broken('https://b.example.com/');
    expect(decideFallback(copy, file).decision.deliveryHeld).toBeNull();
    broken('https://b-new.example.com');
    expect(decideFallback(copy, file).decision.deliveryHeld).toBe(
      `${file} names https://b-new.example.com for sink b, the last good copy https://b.example.com`,
    );
  });
});
