import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildSimOptions,
  registerSimHrms,
  runSimHrms,
  type SimHrmsCliOptions,
} from '../../src/cli/commands/sim-hrms.js';
import { ExitError } from '../../src/util/exit-codes.js';
import { ATT_PATH } from './helpers.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('pg-sim-cli-');
afterAll(() => dir.cleanup());
const base: SimHrmsCliOptions = { host: '127.0.0.1', port: '0', token: [], poison: [] };
const SECRET = 'cli-secret-token-1';

describe('punchgate sim hrms', () => {
  it('prints its URL, logs each request without the token, and stops when asked', async () => {
    let out = '';
    let err = '';
    let stop: () => void = () => {};
    const until = new Promise<void>((r) => (stop = r));
    const run = runSimHrms(
      { ...base, token: [SECRET], latency: '0' },
      { out: (t) => (out += t), err: (t) => (err += t), until },
    );
    await expect
      .poll(() => out, { timeout: 20_000 })
      .toMatch(/^HRMS simulator listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    const url = out.trim().split(' ').pop()!;
    const res = await request(`${url}${ATT_PATH}?token=${SECRET}`, {
      method: 'POST',
      body: 'punches_data=%5B%5D',
      headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(await res.body.json()).toEqual({ Status: true, Payload: [] });
    stop();
    expect(await run).toBe(0);
    expect(err).toMatch(new RegExp(`POST ${ATT_PATH.replace(/\//g, '\\/')} -> 200 punches=0`));
    expect(err).toContain('HRMS simulator stopped');
    expect(out + err).not.toContain(SECRET);
  });

  it('reads a token file (with optional expiry) and refuses a malformed one without echoing it', () => {
    const file = dir.path('tokens');
    writeFileSync(file, `# tokens\n${SECRET}\n\nsecond-token-22 2030-01-01T00:00:00Z\n`);
    const o = buildSimOptions({ ...base, tokenFile: file }, () => {});
    expect(o.tokens).toEqual([
      { token: SECRET },
      { token: 'second-token-22', expiresAt: Date.parse('2030-01-01T00:00:00Z') },
    ]);
    writeFileSync(file, `${SECRET} not-a-date\n`);
    expect(() => buildSimOptions({ ...base, tokenFile: file }, () => {})).toThrow(/tokens:1/);
    try {
      buildSimOptions({ ...base, tokenFile: file }, () => {});
    } catch (e) {
      expect(String(e)).not.toContain(SECRET);
    }
  });

  it('turns switches into options and refuses bad values with exit code 78', () => {
    const warnings: string[] = [];
    const o = buildSimOptions(
      {
        ...base,
        errorRate: '0.25',
        maxBatch: '50',
        poison: ['13,14', '15'],
        tokenExpiresAt: '2030-01-01T00:00:00Z',
        keyStyle: 'lower',
        resetAfterProcessing: true,
      },
      (w) => warnings.push(w),
    );
    expect(o.faults).toEqual({
      errorRate: 0.25,
      maxBatch: 50,
      poisonCodes: ['13', '14', '15'],
      tokenExpiresAt: Date.parse('2030-01-01T00:00:00Z'),
      resetAfterProcessing: true,
    });
    expect(o.keyStyle).toBe('lower');
    expect(o.roster).toBe('auto');
    expect(warnings).toEqual(['no --token or --token-file given: any bearer token is accepted']);
    for (const bad of [
      { errorRate: '2' },
      { port: '70000' },
      { keyStyle: 'camel' },
      { tokenExpiresAt: 'soon' },
      { rosterCheck: 'maybe' },
    ]) {
      let caught: unknown;
      try {
        buildSimOptions({ ...base, ...bad }, () => {});
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ExitError);
      expect((caught as ExitError).exitCode).toBe(78);
    }
  });

  it('loads a roster CSV, turning the check on and warning about bad lines by number', async () => {
    const file = dir.path('roster.csv');
    // Line 4: one cell under a header of four (found by a rehearsal: said only "Employee not found: cut short").
    writeFileSync(
      file,
      'username,name,email,biometriccode\nann,Ann,ann@example.com,42\nbad,Bad,not-an-email,43\ncut short\nbo,Bo,bo@example.com\n',
    );
    const warnings: string[] = [];
    const o = buildSimOptions({ ...base, roster: file }, (w) => warnings.push(w));
    expect(o.roster).toBe('employees');
    let out = '';
    let stop: () => void = () => {};
    const run = runSimHrms(
      { ...base, roster: file },
      { out: (t) => (out += t), err: (t) => warnings.push(t), until: new Promise((r) => (stop = r)) },
    );
    await expect.poll(() => out, { timeout: 20_000 }).toContain('listening');
    const url = out.trim().split(' ').pop()!;
    const emps = (await (await request(`${url}/__sim/employees`)).body.json()) as Array<{
      fields: { username: string };
    }>;
    expect(emps.map((e) => e.fields.username)).toEqual(['ann', 'bo']);
    stop();
    await run;
    expect(warnings.join('')).toContain(`${file}:3: skipped: Validation failed: email: data type must match email`);
    expect(warnings.join('')).toContain(
      `${file}:4: skipped: Employee not found: cut short (the line has 1 of the header's 4 cells: cut short, or a comma missing?)`,
    );
    expect(warnings.join('')).not.toContain(`${file}:5:`);
  });

  it('registers `sim hrms` beside other sim commands', () => {
    const program = new Command('punchgate');
    program.command('sim').command('zk');
    registerSimHrms(program);
    const simCmd = program.commands.find((c) => c.name() === 'sim')!;
    expect(program.commands.filter((c) => c.name() === 'sim')).toHaveLength(1);
    expect(simCmd.commands.map((c) => c.name())).toEqual(['zk', 'hrms']);
    const hrms = simCmd.commands.find((c) => c.name() === 'hrms')!;
    expect(hrms.options.map((o) => o.long)).toEqual(
      expect.arrayContaining([
        '--token',
        '--token-file',
        '--mapping',
        '--roster',
        '--poison',
        '--seed',
        '--reset-after-processing',
      ]),
    );
  });
});
