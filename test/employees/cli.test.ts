import { readFileSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerEmployees } from '../../src/cli/commands/employees.js';
import { tempDir } from '../helpers/tmp.js';
import { startRig, TOKEN, writeConfig, type Rig } from './helpers.js';

/**
 * The commands through commander, in-process, with a real config file and token file.
 * The root program mirrors src/cli/program.ts's global options; it is built here so that this
 * test does not depend on the other commands registered in commands/index.ts.
 */
function program(): Command {
  const p = new Command('punchgate')
    .option('-c, --config <file>')
    .option('--pretty')
    .option('--log-level <level>')
    .exitOverride();
  registerEmployees(p);
  return p;
}

describe('punchgate employees (CLI)', () => {
  let rig: Rig;
  let tmp: ReturnType<typeof tempDir>;
  let out: string;
  let err: string;

  beforeEach(async () => {
    rig = await startRig();
    tmp = tempDir('punchgate-emp-cli-');
    vi.stubEnv('PUNCHGATE_HRMS_TOKEN', '');
    vi.stubEnv('CREDENTIALS_DIRECTORY', '');
    writeFileSync(tmp.path('token'), `${TOKEN}\n`);
    writeConfig(tmp.path('punchgate.yaml'), {
      baseUrl: rig.sim.url,
      tokenFile: tmp.path('token'),
      dir: tmp.dir,
      employees: { columns: { Login: 'username', 'Full Name': 'name', Mail: 'email' }, required: ['username', 'name'] },
    });
    out = '';
    err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    process.exitCode = undefined;
    await rig.close();
    tmp.cleanup();
  });

  async function run(...args: string[]): Promise<number> {
    out = '';
    err = '';
    process.exitCode = undefined;
    await program().parseAsync(['node', 'punchgate', '-c', tmp.path('punchgate.yaml'), 'employees', ...args]);
    return Number(process.exitCode ?? 0);
  }

  it('create, update, disable and fetch', async () => {
    expect(
      await run(
        'create',
        '--username',
        'jdoe',
        '--name',
        'John Doe',
        '--email',
        'jdoe@example.com',
        '--block',
        '0',
        '--role',
        'Engineer',
        '--field',
        'biometriccode=77',
      ),
    ).toBe(0);
    expect(out).toMatch(/^Employee created\n/);
    expect(await run('update', 'jdoe', '--pan-attach', 'https://docs.example.com/pan.pdf', '--dob', '1990-01-31')).toBe(
      0,
    );
    expect(out).toMatch(/^Employee updated\n/);
    expect(rig.sim.employees()[0]!.master).toMatchObject({
      'Employee Name': 'John Doe',
      Designation: 'Engineer',
      'PAN Document': 'https://docs.example.com/pan.pdf',
      'Date of Birth': '1990-01-31',
      'User Status': 0,
    });
    expect(await run('disable', 'jdoe')).toBe(0);
    expect(out).toBe('Employee disabled\n');
    expect(await run('fetch', '--status', 'blocked', '--json')).toBe(0);
    expect((JSON.parse(out) as Array<Record<string, unknown>>).map((e) => [e.username, e.block])).toEqual([
      ['jdoe', 1],
    ]);
  });

  it('import with the configured column map writes the table and the JSON report', async () => {
    writeFileSync(
      tmp.path('staff.csv'),
      'Login,Full Name,Mail\r\nann,"Smith, Ann",ann@example.com\r\nbob,,bob@example.com\r\n',
    );
    expect(await run('import', tmp.path('staff.csv'), '--report', tmp.path('report.json'))).toBe(65);
    expect(out).toMatch(
      /^ROW +LINE +USERNAME +ACTION +MESSAGE\n1 +2 +ann +created +Employee created\n2 +3 +bob +invalid +name is required\n/,
    );
    const report = JSON.parse(readFileSync(tmp.path('report.json'), 'utf8')) as { rows: unknown[]; exitCode: number };
    expect(report.exitCode).toBe(65);
    expect(report.rows).toEqual([
      { row: 1, line: 2, username: 'ann', action: 'created', message: 'Employee created', kind: 'ok', httpStatus: 200 },
      { row: 2, line: 3, username: 'bob', action: 'invalid', message: 'name is required' },
    ]);
    expect(rig.sim.employees().map((e) => e.master['Employee Name'])).toEqual(['Smith, Ann']);
  });

  it('a refused token exits 77 and shows the HRMS message, never the token; a new token file is used at once', async () => {
    const wrong = 'stale-token-4411aa';
    writeFileSync(tmp.path('token'), wrong);
    expect(await run('disable', 'jdoe')).toBe(77);
    expect(err).toContain('the HRMS refused the token (HTTP 401): Bearer token is not correct');
    expect(err).toContain('— put a valid token where hrms.tokenFile (or PUNCHGATE_HRMS_TOKEN) points');
    expect(out + err).not.toContain(wrong);
    writeFileSync(tmp.path('token'), TOKEN);
    expect(await run('disable', 'jdoe')).toBe(1);
    expect(err).toContain('Employee not found: jdoe');
  });

  it('a missing token is a configuration error (78); a bad value is refused before sending (65)', async () => {
    writeConfig(tmp.path('punchgate.yaml'), {
      baseUrl: rig.sim.url,
      tokenFile: tmp.path('no-such-token'),
      dir: tmp.dir,
    });
    expect(await run('fetch')).toBe(78);
    expect(err).toMatch(/cannot read \S*no-such-token \(ENOENT\)/);
    expect(
      await run('create', '--username', 'x', '--name', 'X', '--email', 'x@example.com', '--dob', '31/01/1990'),
    ).toBe(65);
    expect(err).toBe('punchgate: nothing sent: dob must be a real date YYYY-MM-DD, got "31/01/1990"\n');
  });
});
