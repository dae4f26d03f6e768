import { lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { runImportFrappeSync } from '../../src/cli/commands/import-config.js';
import { convertFrappeSync, FrappeSyncInputError } from '../../src/config/import/frappe-sync.js';
import { readPythonSettings } from '../../src/config/import/python-literals.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Settings files in the shapes the Frappe sync tool's users write (written here, after the
 * tool's local_config.py.template and the variants its issues show: the v13 form with one shift
 * name as a string, AUTO directions, clearing on fetch, coordinates, extra settings).
 */
const KEY = 'c0ffee1234abcd5';
const SECRET = 'f00dbabe9876zyx';
const TEMPLATE_LIKE = `
# ERPNext related configs
ERPNEXT_API_KEY = '${KEY}'
ERPNEXT_API_SECRET = "${SECRET}"
ERPNEXT_URL = 'https://erp.example.com/'
ERPNEXT_VERSION = 15

# operational configs
PULL_FREQUENCY = 60 # in minutes
LOGS_DIRECTORY = 'logs' # logs of this script is stored in this directory
IMPORT_START_DATE = None # format: '20190501'

# Biometric device configs (all keys mandatory)
    #- device_id - must be unique, strictly alphanumerical chars only. no space allowed.
devices = [
    {'device_id':'main_gate','ip':'192.168.0.209', 'punch_direction': 'AUTO', 'clear_from_device_on_fetch': False, 'latitude':0.0000,'longitude':0.0000},
    {'device_id':'canteen','ip':'192.168.2.209', 'punch_direction': None, 'clear_from_device_on_fetch': True, 'latitude':12.9716,'longitude':77.5946},
    {'device_id':'exit 2','ip':'192.168.2.210', 'punch_direction': 'OUT', 'clear_from_device_on_fetch': False},
]

# Configs updating sync timestamp in the Shift Type DocType
shift_type_device_mapping = [
    {'shift_type_name': ['General', 'Night Shift'], 'related_device_id': ['main_gate','canteen']},
    {'shift_type_name': ['Security'], 'related_device_id': ['exit 2', 'nowhere']},
]

allowed_exceptions = [1,2,3]
`;

const V13 = `ERPNEXT_API_KEY = ''
ERPNEXT_API_SECRET = ''
ERPNEXT_URL = 'http://erp.local:8000'
ERPNEXT_VERSION = 13
PULL_FREQUENCY = 5
LOGS_DIRECTORY = 'logs'
IMPORT_START_DATE = '20230101'
devices = [
    {'device_id':'HO1','ip':'10.0.0.5', 'punch_direction': 'IN', 'clear_from_device_on_fetch': False},
    {'device_id':'HO2','ip':'10.0.0.6', 'punch_direction': 'OUT', 'clear_from_device_on_fetch': False}
]
shift_type_device_mapping = [
    {'shift_type_name': 'Day', 'related_device_id': ['HO1','HO2']}
]
device_punch_values_IN = [0, 4, 3]
`;

const dir = tempDir('pg-import-config-');
afterAll(() => dir.cleanup());

const opts = {
  file: 'local_config.py',
  apiKeyFile: '/etc/punchgate/frappe-api-key',
  apiSecretFile: '/etc/punchgate/frappe-api-secret',
};

describe('Python settings reader', () => {
  it('reads literals of every kind without running anything', () => {
    const f = readPythonSettings(
      "A = 'x' \"y\"  # joined\nB = -1.5e2\nC = (1, 2,)\nD = {'k': [None, True, False], 2: r'\\d'}\nE = '''two\nlines'''\nimport os\nF = os.environ['K']\nG = 0x1F\n",
    );
    const v = Object.fromEntries(f.assignments.map((a) => [a.name, a.value]));
    expect(v.A).toBe('xy');
    expect(v.B).toBe(-150);
    expect(v.C).toEqual([1, 2]);
    expect(v.D).toEqual({
      kind: 'dict',
      entries: [
        { key: 'k', value: [null, true, false], line: 4 },
        { key: 2, value: '\\d', line: 4 },
      ],
    });
    expect(v.E).toBe('two\nlines');
    expect(v.G).toBe(31);
    expect(f.unreadable.map((u) => [u.line, u.name])).toEqual([
      [7, undefined],
      [8, 'F'],
    ]);
  });
});

describe('convertFrappeSync', () => {
  it('maps the template: sink, terminals with directions, shift sync; says what it left out', () => {
    const r = convertFrappeSync(TEMPLATE_LIKE, opts);
    expect(r.secrets).toEqual({ apiKey: KEY, apiSecret: SECRET });
    expect(r.yaml).not.toContain(KEY);
    expect(r.yaml).not.toContain(SECRET);
    const c = parse(r.yaml) as Record<string, unknown>;
    expect(c).toEqual({
      site: 'erp-example-com',
      journal: { path: '/var/lib/punchgate/journal.db' },
      sinks: [
        {
          name: 'frappe',
          kind: 'frappe',
          baseUrl: 'https://erp.example.com',
          method: 'hrms',
          employeeFieldname: 'attendance_device_id',
          apiKeyFile: '/etc/punchgate/frappe-api-key',
          apiSecretFile: '/etc/punchgate/frappe-api-secret',
          shiftSync: [
            { shiftType: 'General', terminals: ['main_gate', 'canteen'] },
            { shiftType: 'Night Shift', terminals: ['main_gate', 'canteen'] },
            { shiftType: 'Security', terminals: ['exit-2'] },
          ],
        },
      ],
      terminals: [
        { name: 'main_gate', kind: 'zk', host: '192.168.0.209', direction: 'device' },
        { name: 'canteen', kind: 'zk', host: '192.168.2.209', direction: 'none' },
        { name: 'exit-2', kind: 'zk', host: '192.168.2.210', direction: 'out' },
      ],
    });
    const said = r.notMapped.map((n) => `${n.line}: ${n.setting}`);
    expect(said).toEqual([
      '9: PULL_FREQUENCY',
      '10: LOGS_DIRECTORY',
      '11: IMPORT_START_DATE',
      '17: devices[1].clear_from_device_on_fetch',
      '17: devices[1].latitude',
      '17: devices[1].longitude',
      '18: devices[2].device_id',
      '24: shift_type_device_mapping[1].related_device_id',
      '27: allowed_exceptions',
    ]);
    const clear = r.notMapped.find((n) => n.setting.endsWith('clear_from_device_on_fetch'))!;
    expect(clear.why).toMatch(/never clears a terminal's log when it reads it/);
    expect(clear.why).toMatch(/clearAfterDays/);
  });

  it('maps the v13 form: the erpnext method, one shift name as a string, IN and OUT terminals', () => {
    const r = convertFrappeSync(V13, opts);
    const c = parse(r.yaml) as { sinks: Array<Record<string, unknown>>; terminals: Array<Record<string, unknown>> };
    expect(c.sinks[0]).toMatchObject({
      method: 'erpnext',
      baseUrl: 'http://erp.local:8000',
      shiftSync: [{ shiftType: 'Day', terminals: ['HO1', 'HO2'] }],
    });
    expect(c.terminals.map((t) => t.direction)).toEqual(['in', 'out']);
    expect(r.secrets).toEqual({});
    const settings = r.notMapped.map((n) => n.setting);
    expect(settings).toEqual(
      expect.arrayContaining(['ERPNEXT_API_KEY', 'ERPNEXT_API_SECRET', 'ERPNEXT_URL', 'device_punch_values_IN']),
    );
    expect(r.notMapped.find((n) => n.setting === 'ERPNEXT_URL')!.why).toMatch(/https/);
  });

  it('a settings file of 2019 (no ERPNEXT_VERSION, no shift mapping) maps, and says which method it chose', () => {
    const r = convertFrappeSync(
      "ERPNEXT_API_KEY = ''\nERPNEXT_API_SECRET = ''\nERPNEXT_URL = 'https://hr.example.org'\nPULL_FREQUENCY = 60\nLOGS_DIRECTORY = 'logs'\ndevices = [\n    {'device_id':'t1','ip':'10.1.1.1', 'punch_direction': None, 'clear_from_device_on_fetch': False},\n]\n",
      opts,
    );
    const c = parse(r.yaml) as { sinks: Array<Record<string, unknown>>; terminals: unknown[] };
    expect(c.sinks[0]!.method).toBe('hrms');
    expect(c.sinks[0]!.shiftSync).toBeUndefined();
    expect(c.terminals).toEqual([{ name: 't1', kind: 'zk', host: '10.1.1.1', direction: 'none' }]);
    expect(r.notMapped.find((n) => n.setting === 'ERPNEXT_VERSION')!.why).toMatch(/method: erpnext/);
  });

  it('bad input names its line: a broken literal, a missing URL, an unknown direction', () => {
    const line = (text: string) => {
      try {
        convertFrappeSync(text, opts);
      } catch (e) {
        if (e instanceof FrappeSyncInputError) return `${e.line}: ${e.message}`;
        throw e;
      }
      return 'no error';
    };
    expect(line("ERPNEXT_URL = 'https://x.example'\ndevices = [\n  {'device_id': 'a', 'ip': '1.2.3.4'\n")).toMatch(
      /^3: .*"{" is never closed/,
    );
    expect(line("ERPNEXT_URL = 'https://x.example'\nX = 'open\n")).toMatch(/^2: .*unterminated string/);
    expect(line('devices = []\n')).toMatch(/ERPNEXT_URL: expected, found nothing/);
    expect(
      line(
        "ERPNEXT_URL = 'https://x.example'\ndevices = [\n {'device_id': 'a', 'ip': '1.2.3.4',\n  'punch_direction': 'SIDEWAYS'}]\n",
      ),
    ).toMatch(/^4: devices\[0\]\.punch_direction: expected 'IN', 'OUT', 'AUTO' or None, found 'SIDEWAYS'/);
  });
});

describe('punchgate import-config frappe-sync', () => {
  it('writes the config and the secret files (0600), never prints a secret, lists what it left out', () => {
    const file = dir.path('local_config.py');
    writeFileSync(file, TEMPLATE_LIKE);
    const secrets = dir.path('secrets');
    let out = '';
    let err = '';
    const code = runImportFrappeSync(
      file,
      { secretsDir: secrets, output: dir.path('punchgate.yaml') },
      {
        out: (t) => (out += t),
        err: (t) => (err += t),
      },
    );
    expect(code).toBe(0);
    expect(readFileSync(`${secrets}/frappe-api-key`, 'utf8')).toBe(`${KEY}\n`);
    expect(readFileSync(`${secrets}/frappe-api-secret`, 'utf8')).toBe(`${SECRET}\n`);
    expect(statSync(`${secrets}/frappe-api-key`).mode & 0o777).toBe(0o600);
    expect(statSync(`${secrets}/frappe-api-secret`).mode & 0o777).toBe(0o600);
    const yaml = readFileSync(dir.path('punchgate.yaml'), 'utf8');
    expect(yaml).toContain(`apiKeyFile: ${secrets}/frappe-api-key`);
    expect(out + err + yaml).not.toContain(KEY);
    expect(out + err + yaml).not.toContain(SECRET);
    expect(err).toMatch(
      new RegExp(`${file.replace(/[.]/g, '\\.')}:17: devices\\[1\\]\\.clear_from_device_on_fetch: not mapped`),
    );
  });

  it('--output replaces a link planted at its name (a new file renamed into place), never writes through it', () => {
    const file = dir.path('local_config.py');
    writeFileSync(file, TEMPLATE_LIKE);
    const victim = dir.path('victim');
    writeFileSync(victim, 'not to be overwritten\n');
    const out = dir.path('planted.yaml');
    symlinkSync(victim, out);
    const code = runImportFrappeSync(
      file,
      { secretsDir: dir.path('secrets-link'), output: out },
      { out: () => undefined, err: () => undefined },
    );
    expect(code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('not to be overwritten\n');
    expect(lstatSync(out).isFile()).toBe(true);
    expect(statSync(out).mode & 0o777).toBe(0o644);
    expect(readFileSync(out, 'utf8')).toContain('frappe-api-key');
  });

  it('the built CLI: bad input exits 65 with file:line, a missing file 66', async () => {
    const bad = dir.path('bad.py');
    writeFileSync(bad, "ERPNEXT_URL = 'https://x.example'\ndevices = [\n  {'device_id': 'a'}]\n");
    const r = await runPunchgate(['import-config', 'frappe-sync', bad]);
    expect(r.status).toBe(65);
    expect(r.stderr).toContain(`${bad}:3: devices[0].ip: expected, found nothing`);
    const missing = await runPunchgate(['import-config', 'frappe-sync', dir.path('nope.py')]);
    expect(missing.status).toBe(66);
    const good = dir.path('good.py');
    writeFileSync(good, V13);
    const ok = await runPunchgate(['import-config', 'frappe-sync', good]);
    expect(ok.status).toBe(0);
    expect(parse(ok.stdout)).toMatchObject({ sinks: [{ kind: 'frappe', method: 'erpnext' }] });
  });
});
